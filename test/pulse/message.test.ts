/** An alert message's parts (lib/pulse/message.ts) hold upstream text as text, never reordered or as markup. */
import { describe, expect, it } from 'vitest';
import { composeMessage, withManageLink } from '../../lib/pulse/message.ts';
import { PulseLinks } from '../../lib/pulse/links.ts';
import { change } from './changes-fixture.ts';
import { describeFilterUnquoted } from '../../lib/pulse/service.ts';

const BIDI = /[\u202a-\u202e\u2066-\u2069]/;

describe('composeMessage', () => {
  it('names the first subject in the mail\'s Subject on one line, without bidirectional controls (an advisory id reordered it)', () => {
    const row = change({
      build_id: 'b1',
      detected_at: '2026-11-24T09:00:00.000Z',
      kind: 'new_advisory',
      subject_type: 'advisory',
      cve_id: null,
      vendor: 'acme\r\nBcc: x@example.org',
      advisory_id: 'ACME-\u202egnp.exe\u202c-1',
    });
    const message = composeMessage([row], { cadence: 'realtime', periodKey: 'build:b1', links: new PulseLinks('https://pulse.example.org') });
    expect(message.subject).not.toMatch(BIDI);
    expect(message.subject).not.toMatch(/[\r\n]/);
    expect(message.subject).toContain('acme Bcc: x@example.org ACME- gnp.exe -1: New vendor advisory');
  });

  it('drops the bidirectional controls of upstream text from the HTML part, as the text part does (they reordered a title on screen)', () => {
    const row = change({
      build_id: 'b1',
      detected_at: '2026-11-24T09:00:00.000Z',
      kind: 'new_cve',
      cve_id: 'CVE-2026-0001',
      title: 'Update to \u202e1.2.3 fixed\u202c now',
      why: 'Published \u2067today\u2069 <b>x</b>.',
      before: '{"title":"a\u202db"}',
      after: '{"title":"c\u202ad"}',
      vendors: ['acme'],
    });
    const message = withManageLink(composeMessage([row], { cadence: 'realtime', periodKey: 'build:b1', links: new PulseLinks('https://pulse.example.org') }), 'https://pulse.example.org/pulse/s/AAAAAAAAAAAAAAAAAAAAAA');
    expect(message.html).not.toMatch(BIDI);
    expect(message.html).toContain('Update to 1.2.3 fixed now');
    expect(message.html).toContain('Published today &lt;b&gt;x&lt;/b&gt;.');
    expect(message.text).not.toMatch(BIDI);
    // The webhook's structured items carry the data as recorded (a program reads them, not a person).
    expect(message.items[0]!.title).toBe('Update to \u202e1.2.3 fixed\u202c now');
  });

  it('says a subject\'s title once: not in the heading when a change\'s why quotes it (a new advisory\'s does)', () => {
    const links = new PulseLinks('https://pulse.example.org');
    const title = 'Important: kernel security update';
    const advisory = change({
      build_id: 'b1',
      detected_at: '2026-11-24T09:00:00.000Z',
      kind: 'new_advisory',
      subject_type: 'advisory',
      cve_id: null,
      vendor: 'redhat',
      advisory_id: 'RHSA-2026:0001',
      title,
      why: `New redhat advisory RHSA-2026:0001 (Important) for CVE-2026-0001: ${title}.`,
    });
    const once = composeMessage([advisory], { cadence: 'realtime', periodKey: 'build:b1', links });
    expect(once.text.split(title).length - 1).toBe(1);
    expect(once.html.split(title).length - 1).toBe(1);
    // A why that does not quote it: the heading carries the title.
    const cve = change({ build_id: 'b1', detected_at: '2026-11-24T09:00:00.000Z', kind: 'kev_added', cve_id: 'CVE-2026-0002', title: 'Acme gateway RCE', why: 'Added to CISA KEV.' });
    const both = composeMessage([cve], { cadence: 'realtime', periodKey: 'build:b1', links });
    expect(both.text).toContain('CVE-2026-0002 — Acme gateway RCE');
  });

  it('gives a subject\'s risk in its heading as its changes\' sentences give it, one decimal (it said "risk 61" over "service risk 51.6 → 60.5")', () => {
    const row = change({
      build_id: 'b1',
      detected_at: '2026-11-24T09:00:00.000Z',
      kind: 'epss_crossed',
      cve_id: 'CVE-2026-0001',
      title: null,
      service_severity: 'CRITICAL',
      service_risk: 60.5,
      why: 'EPSS rose above 0.10: none → 0.2, service risk 51.6 → 60.5.',
    });
    const flat = change({ ...row, cve_id: 'CVE-2026-0002', change_id: 'c2', service_risk: 88 });
    const message = composeMessage([row, flat], { cadence: 'realtime', periodKey: 'build:b1', links: new PulseLinks('https://pulse.example.org') });
    expect(message.text).toContain('CVE-2026-0001 (CRITICAL, risk 60.5)');
    expect(message.text).toContain('CVE-2026-0002 (CRITICAL, risk 88)');
    expect(message.html).toContain('CVE-2026-0001 (CRITICAL, risk 60.5)');
  });
});

describe('a filter in the confirmation mail', () => {
  it('an empty list of kinds, which restricts nothing, is not named (the mail said "matching kinds  at this address")', () => {
    expect(describeFilterUnquoted({ kinds: [] })).toBe('everything');
    expect(describeFilterUnquoted({ kinds: [], min_severity: 'HIGH', vendor: 'x' })).toBe('vendor as typed in the request (shown once you confirm), min_severity HIGH');
    expect(describeFilterUnquoted({ kinds: ['kev_added', 'new_cve'] })).toBe('kinds kev_added/new_cve');
  });
});
