import { describe, expect, it } from 'vitest';
import { bandOf, higherSeverity, severityFromProse, severityFromWord, severityTaxonomy } from '../../cli/parse/vendor-severity.ts';

describe('vendor severity taxonomies', () => {
  it('maps the Critical/Important/Moderate/Low scale of Red Hat, SUSE and Microsoft', () => {
    for (const taxonomy of ['redhat', 'suse', 'microsoft']) {
      expect(['Critical', 'Important', 'Moderate', 'Low'].map((w) => bandOf(taxonomy, w))).toEqual(['CRITICAL', 'HIGH', 'MEDIUM', 'LOW']);
    }
  });

  it('accepts the lower-case VEX spellings', () => {
    expect(bandOf('redhat', 'moderate')).toBe('MEDIUM');
    expect(bandOf('suse', ' important ')).toBe('HIGH');
  });

  it('maps Cisco SIR, with Informational giving no band and Red Hat words unknown', () => {
    expect(['Critical', 'High', 'Medium', 'Low'].map((w) => bandOf('cisco', w))).toEqual(['CRITICAL', 'HIGH', 'MEDIUM', 'LOW']);
    expect(bandOf('cisco', 'Informational')).toBeNull();
    expect(bandOf('cisco', 'Important')).toBeNull();
  });

  it('gives no band for unknown words, in any taxonomy', () => {
    expect(bandOf('redhat', 'Severe')).toBeNull();
    expect(bandOf('redhat', 'High')).toBeNull();
    expect(bandOf('siemens', 'Remote Code Execution')).toBeNull();
    expect(bandOf('siemens', 'medium')).toBe('MEDIUM');
  });

  it('reads BSI ratings in English and German', () => {
    expect(bandOf('bsi', 'Moderate')).toBe('MEDIUM');
    expect(bandOf('bsi', 'hoch')).toBe('HIGH');
  });

  it('picks the taxonomy from the severity namespace, then the vendor, then the publisher', () => {
    expect(severityTaxonomy({ vendor: 'mirror', severityNamespace: 'https://access.redhat.com/security/updates/classification/' })).toBe('redhat');
    expect(severityTaxonomy({ vendor: 'bsi', severityNamespace: null })).toBe('bsi');
    expect(severityTaxonomy({ vendor: 'acme', publisherNamespace: 'https://www.suse.com' })).toBe('suse');
    expect(severityTaxonomy({ vendor: 'siemens', publisherNamespace: 'https://www.siemens.com' })).toBe('siemens');
    expect(severityTaxonomy({ vendor: 'acme', severityNamespace: 'not a url' })).toBe('acme');
  });

  it('keeps the exact text as evidence', () => {
    expect(severityFromWord('redhat', 'moderate')).toEqual({ band: 'MEDIUM', source: 'redhat', evidence: 'moderate' });
    expect(severityFromWord('redhat', 42)).toBeNull();
    const prose = 'An update.\n\nRed Hat Product Security has rated this update as having a security impact of Critical. A CVSS…';
    expect(severityFromProse(prose)).toEqual({
      band: 'CRITICAL',
      source: 'redhat',
      evidence: 'Red Hat Product Security has rated this update as having a security impact of Critical',
    });
    expect(severityFromProse('Red Hat Product Security has rated this update as having a security impact of Bogus.')).toBeNull();
  });

  it('keeps the higher of two ratings, the first on a tie', () => {
    const low = { band: 'LOW' as const, source: 'x', evidence: 'Low' };
    const high = { band: 'HIGH' as const, source: 'x', evidence: 'Important' };
    const high2 = { band: 'HIGH' as const, source: 'x', evidence: 'Important (2)' };
    expect(higherSeverity(low, high)).toBe(high);
    expect(higherSeverity(high, high2)).toBe(high);
    expect(higherSeverity(null, low)).toBe(low);
  });
});
