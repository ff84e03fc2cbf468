import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RawFormatError } from '../../lib/errors.ts';
import { csafJsonKind, csafParser, csafVendorFromPublisher, csafVendorOf, parseCsafDocument, type VendorAdvisoryRows } from '../../cli/parse/csaf.ts';
import { MemoryStageSink } from '../../cli/stage/writer.ts';

const DIR = fileURLToPath(new URL('../fixtures/csaf/', import.meta.url));
const noProgress = { tick() {}, setTotal() {}, stop() {} };

function load(rel: string): { json: unknown; file: string } {
  const file = join(DIR, rel);
  return { json: JSON.parse(readFileSync(file, 'utf8')), file };
}

function parseFixture(rel: string): VendorAdvisoryRows {
  const { json, file } = load(rel);
  const rows = parseCsafDocument(json, file, csafVendorOf(file, DIR)!);
  if (!rows) throw new Error(`${rel} was skipped as a listing`);
  return rows;
}

/** Every string value anywhere in a JSON document. */
function allStrings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) allStrings(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) allStrings(v, out);
  return out;
}

/** A minimal CSAF document for hand-made cases. */
function csafDoc(document: Record<string, unknown>, vulnerabilities?: unknown[], productTree?: unknown) {
  return {
    document: {
      category: 'csaf_security_advisory',
      csaf_version: '2.0',
      title: 'Hand-made advisory',
      publisher: { category: 'vendor', name: 'Example PSIRT', namespace: 'https://psirt.example.com' },
      tracking: { id: 'EX-2024-0001', status: 'final', version: '1', initial_release_date: '2024-05-01T10:00:00Z', current_release_date: '2024-05-02T10:00:00Z' },
      ...document,
    },
    ...(productTree ? { product_tree: productTree } : {}),
    ...(vulnerabilities ? { vulnerabilities } : {}),
  };
}

describe('CSAF documents: Red Hat', () => {
  it('reads rhsa-2024_6163: Moderate → MEDIUM from the summary sentence, exact evidence', () => {
    const { advisory, cves } = parseFixture('redhat/2024/rhsa-2024_6163.json');
    expect(advisory).toMatchObject({
      vendor: 'redhat',
      advisory_id: 'RHSA-2024:6163',
      title: 'Red Hat Security Advisory: python3.9 security update',
      publisher: 'Red Hat Product Security',
      category: 'csaf_security_advisory',
      tlp: 'WHITE',
      status: 'final',
      version: '3',
      published: '2024-09-03T17:57:24.000Z',
      modified: '2026-03-26T18:50:03.000Z',
      aggregate_severity: 'Moderate',
      aggregate_severity_namespace: 'https://access.redhat.com/security/updates/classification/',
      vendor_severity: 'MEDIUM',
      vendor_severity_source: 'redhat',
      vendor_severity_evidence: 'Red Hat Product Security has rated this update as having a security impact of Moderate',
      cvss_score: 5.3,
      cvss_vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:N/I:N/A:H',
      cve_ids: ['CVE-2024-8088'],
      url: 'https://access.redhat.com/errata/RHSA-2024:6163',
    });
    expect(advisory.description).toMatch(/^An update for python3\.9 is now available/);
    expect(advisory.products).toEqual([
      'python3.9-0:3.9.18-3.el9_4.5.src as a component of Red Hat Enterprise Linux AppStream (v. 9)',
      'python3.9-0:3.9.18-3.el9_4.5.src as a component of Red Hat Enterprise Linux BaseOS (v. 9)',
      'python3.9-0:3.9.18-3.el9_4.5.src as a component of Red Hat Enterprise Linux CRB (v. 9)',
    ]);
    expect(advisory.remediations.map((r) => r.category)).toEqual(['vendor_fix', 'workaround']);
    expect(advisory.references).toHaveLength(4);
    expect(cves).toEqual([
      {
        vendor: 'redhat',
        advisory_id: 'RHSA-2024:6163',
        cve_id: 'CVE-2024-8088',
        vendor_severity: 'MEDIUM',
        vendor_severity_source: 'redhat',
        vendor_severity_evidence: 'Moderate',
        cvss_score: 5.3,
        cvss_vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:N/I:N/A:H',
        cvss_version: '3.1',
        exploited: false,
        exploited_evidence: null,
        cwe_id: 'CWE-835',
        file: join(DIR, 'redhat/2024/rhsa-2024_6163.json'),
      },
    ]);
  });

  it('reads rhsa-2021_5217: Important → HIGH without any CVSS score', () => {
    const { advisory, cves } = parseFixture('redhat/2021/rhsa-2021_5217.json');
    expect(advisory).toMatchObject({
      vendor_severity: 'HIGH',
      vendor_severity_evidence: 'Red Hat Product Security has rated this update as having a security impact of Important',
      cvss_score: null,
      cvss_vector: null,
      products: ['Red Hat Single Sign-On'],
    });
    expect(cves).toHaveLength(1);
    expect(cves[0]).toMatchObject({ cve_id: 'CVE-2021-4133', vendor_severity: 'HIGH', vendor_severity_evidence: 'Important', cvss_score: null, cwe_id: 'CWE-863' });
  });

  it('keeps an informational advisory with no vulnerabilities, products from the tree', () => {
    const { advisory, cves } = parseFixture('redhat/2019/rhsa-2019_1862.json');
    expect(advisory).toMatchObject({
      advisory_id: 'RHSA-2019:1862',
      category: 'csaf_informational_advisory',
      cve_ids: [],
      products: ['Red Hat OpenShift Enterprise'],
      vendor_severity: 'LOW',
      vendor_severity_evidence: 'Low',
    });
    expect(cves).toEqual([]);
  });
});

describe('CSAF documents: CISA, BSI, VEX', () => {
  it('reads CISA ICS icsa-24-081-01: CVSS 6.4 and no vendor band', () => {
    const { advisory, cves } = parseFixture('cisa/2024/icsa-24-081-01.json');
    expect(advisory).toMatchObject({
      vendor: 'cisa',
      advisory_id: 'ICSA-24-081-01',
      publisher: 'CISA',
      aggregate_severity: null,
      vendor_severity: null,
      vendor_severity_source: null,
      vendor_severity_evidence: null,
      cvss_score: 6.4,
      cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:L/I:L/A:N',
      products: ['Advantech WebAccess/SCADA: 9.1.5U'],
    });
    expect(cves).toEqual([expect.objectContaining({ cve_id: 'CVE-2024-2453', cvss_score: 6.4, vendor_severity: null, cwe_id: 'CWE-89' })]);
  });

  it('reads a CISA VEX with a semver tracking version and known_affected + fixed products: the fixed release is no affected product', () => {
    const { advisory } = parseFixture('cisa/2024/va-24-262-01.json');
    expect(advisory).toMatchObject({ version: '1.0.0', category: 'csaf_vex', cvss_score: 8.8 });
    expect(advisory.products).toEqual(['Planet Fitness Planet Fitness Workouts 0 < 9.8.12']);
  });

  it('reads BSI: aggregate severity without namespace in the BSI taxonomy', () => {
    const { advisory, cves } = parseFixture('bsi/2022/bsi-2022-0001.json');
    expect(advisory).toMatchObject({
      vendor: 'bsi',
      aggregate_severity: 'Moderate',
      aggregate_severity_namespace: null,
      vendor_severity: 'MEDIUM',
      vendor_severity_source: 'bsi',
      vendor_severity_evidence: 'Moderate',
      cvss_score: 6.1,
    });
    // The five affected versions; the sixth product, 1.0.0-rc2, is first_fixed and fixed.
    expect(advisory.products).toHaveLength(5);
    expect(advisory.products.some((p) => p.endsWith('1.0.0-rc2'))).toBe(false);
    // No per-CVE threats: the CVE gets the document's rating.
    expect(cves[0]).toMatchObject({ cve_id: 'CVE-2022-27193', vendor_severity: 'MEDIUM', vendor_severity_evidence: 'Moderate' });
  });

  it('describes a document without notes of its own by its one vulnerability\'s description note', () => {
    // BSI-2022-0001 has no document.notes; its only vulnerability has a "description" note.
    expect(parseFixture('bsi/2022/bsi-2022-0001.json').advisory.description).toBe(
      'CSAF Tools CVRF-CSAF-Converter 1.0.0-rc1 resolves XML External Entities (XXE). This leads to the inclusion of arbitrary (local) file content into the generated output document. An attacker can exploit this to disclose information from the system running the converter.',
    );
    // A document with notes of its own keeps them (VA-24-262-01's "Risk evaluation" summary,
    // not its vulnerability's description).
    expect(parseFixture('cisa/2024/va-24-262-01.json').advisory.description).toMatch(/^The Planet Fitness Workouts iOS and Android mobile apps are vulnerable/);
  });

  it('names no product of a VEX that only marks it known_not_affected (OASIS 2022-EVD-UC-01-NA-001)', () => {
    // The real example says ABC 4.2 is NOT affected by Log4Shell: listing it among the
    // advisory's products (the whole tree, as for an informational document) said the opposite.
    const { advisory, cves } = parseFixture('example/2022-evd-uc-01-na-001.json');
    expect(advisory).toMatchObject({ advisory_id: '2022-EVD-UC-01-NA-001', category: 'csaf_vex', cve_ids: ['CVE-2021-44228'], products: [] });
    expect(cves).toHaveLength(1);
    // Only products under investigation: not known to be affected either.
    const tree = { full_product_names: [{ name: 'Acme Widget 1.0', product_id: 'P1' }] };
    const ui = parseCsafDocument(csafDoc({}, [{ cve: 'CVE-2024-4446', product_status: { under_investigation: ['P1'] } }], tree), 'x/u.json', 'acme')!;
    expect(ui.advisory.products).toEqual([]);
  });

  it("describes a SUSE update by its description note, not by a summary note that only repeats the title", () => {
    // SUSE's CSAF shape (as data/sample/csaf/suse/…): "Title of the patch" (summary) repeats
    // document.title; "Description of the patch" (description) says what the update fixes.
    const notes = [
      { category: 'summary', text: 'Security update for glibc', title: 'Title of the patch' },
      { category: 'description', text: 'This update for glibc fixes the following issues:\n\n- CVE-2026-90161: heap overflow in __vsyslog_internal', title: 'Description of the patch' },
      { category: 'legal_disclaimer', text: 'CSAF 2.0 data is provided by SUSE under the Creative Commons License 4.0 with Attribution (CC-BY-4.0).', title: 'Terms of use' },
    ];
    const rows = parseCsafDocument(csafDoc({ title: 'Security update for glibc', notes }), 'x/s.json', 'suse')!;
    expect(rows.advisory.description).toBe('This update for glibc fixes the following issues:\n\n- CVE-2026-90161: heap overflow in __vsyslog_internal');
  });

  it('reads a minimal VEX without distribution', () => {
    const { advisory, cves } = parseFixture('example/2022-evd-uc-01-a-001.json');
    expect(advisory).toMatchObject({ vendor: 'example', tlp: null, cve_ids: ['CVE-2021-44228'], products: ['Example Company DEF 1.0'] });
    expect(cves[0]!.vendor_severity).toBeNull();
  });

  it('gives evidence that is always an exact substring of the document', () => {
    for (const rel of ['redhat/2024/rhsa-2024_6163.json', 'redhat/2021/rhsa-2021_5217.json', 'redhat/2019/rhsa-2019_1862.json', 'bsi/2022/bsi-2022-0001.json']) {
      const { json } = load(rel);
      const strings = allStrings(json);
      const { advisory, cves } = parseFixture(rel);
      for (const evidence of [advisory.vendor_severity_evidence, ...cves.map((c) => c.vendor_severity_evidence)]) {
        expect(evidence, rel).not.toBeNull();
        expect(strings.some((s) => s.includes(evidence!)), `${rel}: ${evidence}`).toBe(true);
      }
    }
  });
});

describe('CSAF documents: hand-made cases', () => {
  it('reads lower-case Red Hat VEX threats per CVE', () => {
    const doc = csafDoc({ publisher: { category: 'vendor', name: 'Red Hat Product Security', namespace: 'https://www.redhat.com' }, category: 'csaf_vex' }, [
      { cve: 'CVE-2024-1111', threats: [{ category: 'impact', details: 'moderate' }] },
      { cve: 'cve-2024-2222', threats: [{ category: 'impact', details: 'low' }, { category: 'impact', details: 'important' }] },
    ]);
    const rows = parseCsafDocument(doc, 'redhat/vex/cve-2024-1111.json', 'redhat')!;
    expect(rows.cves.map((c) => [c.cve_id, c.vendor_severity, c.vendor_severity_evidence])).toEqual([
      ['CVE-2024-1111', 'MEDIUM', 'moderate'],
      ['CVE-2024-2222', 'HIGH', 'important'],
    ]);
    // No aggregate: the advisory is rated by its highest CVE.
    expect(rows.advisory).toMatchObject({ vendor_severity: 'HIGH', vendor_severity_evidence: 'important' });
  });

  it('reads Cisco SIR, with Informational and unknown words giving no band', () => {
    const ns = 'https://www.cisco.com/c/en/us/about/security-center/security-vulnerability-policy.html';
    const high = parseCsafDocument(csafDoc({ aggregate_severity: { namespace: ns, text: 'High' } }), 'c/a.json', 'cisco')!;
    expect(high.advisory).toMatchObject({ vendor_severity: 'HIGH', vendor_severity_source: 'cisco', vendor_severity_evidence: 'High' });
    const info = parseCsafDocument(csafDoc({ aggregate_severity: { namespace: ns, text: 'Informational' } }), 'c/b.json', 'cisco')!;
    expect(info.advisory.vendor_severity).toBeNull();
    const unknown = parseCsafDocument(csafDoc({ aggregate_severity: { text: 'Severe' } }), 'x/c.json', 'acme')!;
    expect(unknown.advisory).toMatchObject({ aggregate_severity: 'Severe', vendor_severity: null, vendor_severity_evidence: null });
  });

  it('flags exploit_status "Exploited:Yes" as exploited, with the text as evidence', () => {
    const status = 'Publicly Disclosed:No;Exploited:Yes;Latest Software Release:Exploitation Detected';
    const rows = parseCsafDocument(
      csafDoc({}, [
        { cve: 'CVE-2025-24059', threats: [{ category: 'exploit_status', details: status }, { category: 'impact', details: 'Important' }] },
        { cve: 'CVE-2025-24060', threats: [{ category: 'exploit_status', details: 'Publicly Disclosed:No;Exploited:No' }] },
      ]),
      'microsoft/msrc_cve-2025-24059.json',
      'microsoft',
    )!;
    expect(rows.cves.map((c) => [c.cve_id, c.exploited, c.exploited_evidence, c.vendor_severity])).toEqual([
      ['CVE-2025-24059', true, status, 'HIGH'],
      ['CVE-2025-24060', false, null, null],
    ]);
  });

  it('skips placeholder CVE ids, takes the highest v3/v4 CVSS and reads CSAF 2.1 metrics', () => {
    const rows = parseCsafDocument(
      csafDoc({ csaf_version: '2.1' }, [
        { cve: 'CVE-2024-XXXX', scores: [{ products: [], cvss_v3: { version: '3.1', vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', baseScore: 9.8 } }] },
        {
          cve: 'CVE-2024-3333',
          cwes: [{ id: 'CWE-787', name: 'Out-of-bounds Write' }],
          metrics: [
            { products: [], content: { cvss_v3: { version: '3.1', vectorString: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:N/I:H/A:N', baseScore: 5.9 } } },
            { products: [], content: { cvss_v4: { version: '4.0', vectorString: 'CVSS:4.0/AV:N/AC:H/AT:N/PR:N/UI:N/VC:N/VI:H/VA:N/SC:N/SI:N/SA:N' } } },
          ],
        },
      ]),
      'x/d.json',
      'acme',
    )!;
    expect(rows.cves).toHaveLength(1);
    expect(rows.cves[0]).toMatchObject({ cve_id: 'CVE-2024-3333', cvss_score: 8.2, cvss_version: '4.0', cwe_id: 'CWE-787' });
    // The placeholder vulnerability still counts for the document's highest score.
    expect(rows.advisory.cvss_score).toBe(9.8);
    expect(rows.advisory.cve_ids).toEqual(['CVE-2024-3333']);
  });

  it('resolves product ids through nested branches, full_product_names and relationships', () => {
    const tree = {
      branches: [{ category: 'vendor', name: 'Acme', branches: [{ category: 'product_name', name: 'Widget', branches: [{ category: 'product_version', name: '1.0', product: { name: 'Acme Widget 1.0', product_id: 'P1' } }] }] }],
      full_product_names: [{ name: 'Acme Gadget', product_id: 'P2' }],
      relationships: [{ category: 'installed_on', product_reference: 'P1', relates_to_product_reference: 'P2', full_product_name: { name: 'Acme Widget 1.0 on Acme Gadget', product_id: 'P1:P2' } }],
    };
    const rows = parseCsafDocument(
      csafDoc({}, [{ cve: 'CVE-2024-4444', product_status: { known_affected: ['P1:P2', 'P1'], fixed: ['P2'], known_not_affected: ['P9'] } }], tree),
      'x/e.json',
      'acme',
    )!;
    // P2 holds the fix: not an affected product.
    expect(rows.advisory.products).toEqual(['Acme Widget 1.0 on Acme Gadget', 'Acme Widget 1.0']);
    // A document that marks nothing affected names the products it fixes (as Red Hat's do).
    const fixesOnly = parseCsafDocument(csafDoc({}, [{ cve: 'CVE-2024-4445', product_status: { fixed: ['P2', 'P1'] } }], tree), 'x/f.json', 'acme')!;
    expect(fixesOnly.advisory.products).toEqual(['Acme Gadget', 'Acme Widget 1.0']);
  });
});

describe('CSAF files that are not advisories', () => {
  it('recognises provider metadata and ROLIE feeds as listings', () => {
    expect(csafJsonKind(load('example/provider-metadata.json').json)).toBe('listing');
    expect(csafJsonKind(load('example/feed-tlp-white.json').json)).toBe('listing');
    expect(parseCsafDocument(load('example/feed-tlp-white.json').json, 'feed.json', 'example')).toBeNull();
  });

  it('rejects a CSAF document without tracking.id, naming the file and the document', () => {
    const doc = csafDoc({ tracking: { status: 'final' }, title: 'No id here' });
    expect(() => parseCsafDocument(doc, 'csaf/acme/2024/x.json', 'acme')).toThrow(RawFormatError);
    expect(() => parseCsafDocument(doc, 'csaf/acme/2024/x.json', 'acme')).toThrow(/csaf\/acme\/2024\/x\.json: record No id here: CSAF document has no document\.tracking\.id/);
  });

  it('rejects JSON that is neither CSAF nor a listing', () => {
    expect(() => parseCsafDocument({ hello: 'world' }, 'csaf/acme/y.json', 'acme')).toThrow(/csaf\/acme\/y\.json: neither a CSAF document/);
  });

  it('rejects a vulnerabilities member that is not an array', () => {
    const doc = { ...csafDoc({}), vulnerabilities: { cve: 'CVE-2024-1' } };
    expect(() => parseCsafDocument(doc, 'z.json', 'acme')).toThrow(/record EX-2024-0001: "vulnerabilities" is not an array/);
  });
});

describe('CSAF ids the API serves', () => {
  it('refuses a tracking.id with a control character or over 200 characters, naming the file (it was published and linked, and its page a 400)', () => {
    const { json, file } = load('redhat/2024/rhsa-2024_6163.json') as { json: { document: { tracking: Record<string, unknown> } }; file: string };
    json.document.tracking.id = 'cisco-sa-crlf\r\nBcc: victim@example.org';
    expect(() => parseCsafDocument(json, file, 'redhat')).toThrow(RawFormatError);
    expect(() => parseCsafDocument(json, file, 'redhat')).toThrow(
      /rhsa-2024_6163\.json: record cisco-sa-crlf\\u000d\\u000aBcc: victim@example\.org: document\.tracking\.id cannot be served by the API: expected an advisory id of at most 200 printable characters/,
    );
    json.document.tracking.id = `RHSA-${'9'.repeat(200)}`;
    expect(() => parseCsafDocument(json, file, 'redhat')).toThrow(/record RHSA-9{75}…: document\.tracking\.id cannot be served by the API: .*\(found 205\)/);
    json.document.tracking.id = `RHSA-${'9'.repeat(195)}`;
    expect(parseCsafDocument(json, file, 'redhat')!.advisory.advisory_id).toHaveLength(200);
  });

  it('refuses a vendor folder the API cannot serve, naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'csaf-'));
    try {
      mkdirSync(join(dir, 'red hat'));
      writeFileSync(join(dir, 'red hat', 'rhsa-2024_6163.json'), readFileSync(join(DIR, 'redhat', '2024', 'rhsa-2024_6163.json')));
      await expect(csafParser.stage(dir, new MemoryStageSink(), noProgress)).rejects.toThrow(
        /red hat\/rhsa-2024_6163\.json: vendor "red hat" \(the folder below csaf\/\) cannot be served by the API/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('CSAF text fields', () => {
  it('a title that is not a string (42) is refused naming the file and the advisory (it was dropped without a word)', () => {
    const { json, file } = load('cisa/2024/icsa-24-060-01.json') as { json: { document: Record<string, unknown> }; file: string };
    json.document.title = 42;
    expect(() => parseCsafDocument(json, file, 'cisa')).toThrow(/icsa-24-060-01\.json: record ICSA-24-060-01: document\.title is not a string \(42\)$/);
    json.document.title = undefined;
    json.document.category = ['csaf_security_advisory'];
    expect(() => parseCsafDocument(json, file, 'cisa')).toThrow(/record ICSA-24-060-01: document\.category is not a string/);
  });
});

describe('CSAF vectors and scores', () => {
  it('a baseScore out of 0–10 is refused, naming the file, the advisory and where (it was published as the advisory\'s CVSS)', () => {
    const doc = csafDoc({}, [{ cve: 'CVE-2024-0001', scores: [{ products: ['P1'], cvss_v3: { version: '3.1', vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', baseScore: 98, baseSeverity: 'CRITICAL' } }] }]);
    expect(() => parseCsafDocument(doc, 'csaf/example/ex-2024-0001.json', 'example')).toThrow(
      /record EX-2024-0001: vulnerabilities\[0\]\.scores\[0\]\.cvss_v3\.baseScore 98 is out of range 0–10$/,
    );
  });

  it('a cvss_v3 vector that does not parse is dropped beside its valid baseScore (it was published as is)', () => {
    const doc = csafDoc({}, [{ cve: 'CVE-2024-0001', scores: [{ products: ['P1'], cvss_v3: { version: '3.1', vectorString: 'CVSS:3.1/AV:Z/<script>', baseScore: 9.8, baseSeverity: 'CRITICAL' } }] }]);
    const parsed = parseCsafDocument(doc, 'csaf/example/ex-2024-0001.json', 'example');
    expect(JSON.stringify(parsed)).not.toContain('<script>');
    expect(JSON.stringify(parsed)).toContain('9.8');
  });
});

describe('CSAF dates', () => {
  it('an initial_release_date its month lacks is refused naming the file and the advisory (it was published as 2026-03-02)', () => {
    const doc = csafDoc({ tracking: { id: 'EX-2026-0001', status: 'final', version: '1', initial_release_date: '2026-02-30T00:00:00+00:00', current_release_date: '2026-03-05T00:00:00+00:00' } });
    expect(() => parseCsafDocument(doc, 'csaf/example/ex-2026-0001.json', 'example')).toThrow(
      /csaf\/example\/ex-2026-0001\.json: record EX-2026-0001: unreadable document\.tracking\.initial_release_date \("2026-02-30T00:00:00\+00:00"\): day 30 does not exist in 2026-02/,
    );
  });
});

describe('csafVendorOf', () => {
  it('takes the first folder below the source folder', () => {
    expect(csafVendorOf('/raw/csaf/redhat/2024/x.json', '/raw/csaf')).toBe('redhat');
    expect(csafVendorOf('/raw/csaf/RedHat/all.zip!2024/x.json', '/raw/csaf')).toBe('redhat');
    expect(csafVendorOf('/raw/csaf/x.json', '/raw/csaf')).toBeNull();
    expect(csafVendorOf('/raw/csaf/all.zip!redhat/x.json', '/raw/csaf')).toBeNull();
  });
});

describe('csafParser.stage', () => {
  it('stages every advisory of the fixture tree and skips the listings', async () => {
    const sink = new MemoryStageSink();
    const result = await csafParser.stage(DIR, sink, noProgress);
    expect(result).toEqual({ files: 11, records: 9 });
    expect(sink.rows.vendor_advisory.map((a) => `${a.vendor}/${a.advisory_id}`).sort()).toEqual([
      'bsi/BSI-2022-0001',
      'cisa/ICSA-24-060-01',
      'cisa/ICSA-24-081-01',
      'cisa/VA-24-262-01',
      'example/2022-EVD-UC-01-A-001',
      'example/2022-EVD-UC-01-NA-001',
      'redhat/RHSA-2019:1862',
      'redhat/RHSA-2021:5217',
      'redhat/RHSA-2024:6163',
    ]);
    expect(sink.rows.vendor_advisory_cve).toHaveLength(8);
  });

  it('takes the vendor of a document outside a vendor folder from its publisher namespace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'csaf-'));
    try {
      const doc = csafDoc({}) as { document: { publisher: Record<string, unknown> } };
      doc.document.publisher = { category: 'vendor', name: 'Acme Product Security', namespace: 'https://www.acme.example' };
      writeFileSync(join(dir, 'loose.json'), JSON.stringify(doc));
      const sink = new MemoryStageSink();
      await csafParser.stage(dir, sink, noProgress);
      expect(sink.rows.vendor_advisory.map((a) => a.vendor)).toEqual(['acme']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('derives the vendor from the registrable domain of real publisher namespaces, confirmed by the name', () => {
    const vendorOf = (name: string | undefined, namespace: string) => {
      const doc = csafDoc({}) as { document: { publisher: Record<string, unknown> } };
      doc.document.publisher = { category: 'vendor', ...(name ? { name } : {}), namespace };
      return csafVendorFromPublisher(doc);
    };
    // Publisher name and namespace pairs as the vendors publish them (data/sample, the OASIS examples, CISA, BSI).
    expect(vendorOf('Cisco PSIRT', 'https://www.cisco.com')).toBe('cisco');
    expect(vendorOf('Siemens ProductCERT', 'https://www.siemens.com')).toBe('siemens');
    expect(vendorOf('Red Hat Product Security', 'https://www.redhat.com')).toBe('redhat');
    expect(vendorOf('SUSE Product Security Team', 'https://www.suse.com/')).toBe('suse');
    expect(vendorOf('Microsoft Security Response Center', 'https://msrc.microsoft.com')).toBe('microsoft');
    expect(vendorOf('Oracle', 'https://www.oracle.com')).toBe('oracle');
    expect(vendorOf('Fortinet PSIRT', 'https://www.fortiguard.com')).toBe('fortinet');
    expect(vendorOf('Palo Alto Networks Product Security Incident Response Team', 'https://security.paloaltonetworks.com')).toBe('paloaltonetworks');
    expect(vendorOf('CISA', 'https://www.cisa.gov/')).toBe('cisa');
    expect(vendorOf('Bundesamt für Sicherheit in der Informationstechnik', 'https://www.bsi.bund.de')).toBe('bsi');
    // The case: a psirt.<vendor>.com namespace is the vendor, never `psirt`.
    expect(vendorOf('Example Company ProductCERT', 'https://psirt.example.com')).toBe('example');
    expect(vendorOf('Product Security Incident Response Team', 'https://psirt.acme.com')).toBe('acme');
    expect(vendorOf(undefined, 'https://psirt.acme.co.uk/csaf')).toBe('acme');
    expect(vendorOf('Acme PSIRT', 'not a url')).toBe('acme');
  });

  it('a loose document from psirt.<vendor>.com is staged under <vendor>', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'csaf-'));
    try {
      writeFileSync(join(dir, 'vex.json'), readFileSync(join(DIR, 'example', '2022-evd-uc-01-a-001.json')));
      const sink = new MemoryStageSink();
      await csafParser.stage(dir, sink, noProgress);
      expect(sink.rows.vendor_advisory.map((a) => a.vendor)).toEqual(['example']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects a document outside a vendor folder that names no publisher', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'csaf-'));
    try {
      const doc = csafDoc({}) as { document: Record<string, unknown> };
      delete doc.document.publisher;
      writeFileSync(join(dir, 'loose.json'), JSON.stringify(doc));
      await expect(csafParser.stage(dir, new MemoryStageSink(), noProgress)).rejects.toThrow(/loose\.json: no vendor/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
