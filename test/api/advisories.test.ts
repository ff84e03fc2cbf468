/**
 * Vendor advisories (contract 2.7, 4.9, 4.10) on the sample snapshot: 59 documents of six
 * vendors, two without a CVE; paging, filters and one advisory in full.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findVendorAdvisory, listVendorAdvisories, type AdvisoryDetail, type AdvisoryListFilter, type AdvisoryPage } from '../../api/queries/advisories.ts';
import { TableUnavailableError } from '../../api/queries/support.ts';
import type { OpenSnapshot } from '../../api/snapshot/open.ts';
import { damagedSampleDataDir, openDamagedSample, openSample } from './sample-reader.ts';
import { startOn, startSampleServer, type SampleServer } from './server-harness.ts';

let sample: OpenSnapshot;
beforeAll(async () => {
  sample = await openSample();
});
afterAll(() => sample?.close());

const list = (filter: Partial<AdvisoryListFilter>) => listVendorAdvisories(sample, { limit: 50, offset: 0, ...filter });
const micros = (iso: string) => BigInt(Date.parse(iso)) * 1000n;
const keyOf = (a: { vendor: string; advisory_id: string }) => `${a.vendor}/${a.advisory_id}`;

describe('list', () => {
  it('counts every advisory and pages newest first', async () => {
    const page = await list({ limit: 5 });
    expect(page.total).toBe(59);
    expect(page.advisories.map(keyOf)).toEqual([
      'cisco/cisco-sa-asaftd-ssl-dos-Xq7bRt2',
      'siemens/SSA-613077',
      'redhat/RHSA-2026:9102',
      'cisa/ICSA-26-302-01',
      'cisco/cisco-sa-iosxe-webui-privesc-Kq7dTn3',
    ]);
    const all = await list({ limit: 200 });
    const published = all.advisories.map((a) => a.published!);
    expect(published).toEqual([...published].sort().reverse());
    expect(all.advisories.at(-1)!.advisory_id).toBe('RHSA-2019:1862');
  });

  it('pages without overlap or gap', async () => {
    const first = await list({ limit: 20, offset: 0 });
    const second = await list({ limit: 20, offset: 20 });
    const both = await list({ limit: 40, offset: 0 });
    expect([...first.advisories, ...second.advisories].map(keyOf)).toEqual(both.advisories.map(keyOf));
    expect(second).toMatchObject({ total: 59, limit: 20, offset: 20 });
    const past = await list({ offset: 100 });
    expect(past).toMatchObject({ advisories: [], total: 59 });
  });

  it('has_cve=false keeps the advisories not linked to a CVE yet, true the others', async () => {
    const unlinked = await list({ hasCve: false });
    expect(unlinked.advisories.map(keyOf)).toEqual(['cisco/cisco-sa-asaftd-ssl-dos-Xq7bRt2', 'redhat/RHSA-2019:1862']);
    expect(unlinked.advisories.every((a) => !a.has_cve && a.cve_ids.length === 0)).toBe(true);
    const linked = await list({ hasCve: true, limit: 200 });
    expect(linked.total).toBe(57);
    expect(linked.advisories.every((a) => a.has_cve && a.cve_ids.length > 0)).toBe(true);
  });

  it('filters on the vendor, any case', async () => {
    const redhat = await list({ vendor: 'RedHat' });
    expect(redhat.advisories.map((a) => a.advisory_id)).toEqual(['RHSA-2026:9102', 'RHSA-2026:9101', 'RHSA-2019:1862']);
    expect((await list({ vendor: 'suse' })).total).toBe(51);
    expect((await list({ vendor: 'nobody' })).total).toBe(0);
    expect((await list({ vendor: 'cisco', hasCve: false })).advisories.map((a) => a.advisory_id)).toEqual(['cisco-sa-asaftd-ssl-dos-Xq7bRt2']);
  });

  it('since keeps advisories modified at or after the instant (published when never modified)', async () => {
    const november = await list({ sinceMicros: micros('2026-11-01T00:00:00Z') });
    expect(november.advisories.map(keyOf)).toEqual(['cisco/cisco-sa-asaftd-ssl-dos-Xq7bRt2', 'siemens/SSA-613077', 'redhat/RHSA-2026:9102']);
    // Inclusive bound.
    expect((await list({ sinceMicros: micros('2026-11-10T00:00:00Z') })).total).toBe(2);
    expect((await list({ sinceMicros: micros('2026-11-10T00:00:00Z') + 1n })).total).toBe(1);
    // Microsoft's month was published 2026-10-13 and modified 2026-10-21.
    const lateOctober = await list({ sinceMicros: micros('2026-10-20T00:00:00Z'), vendor: 'microsoft' });
    expect(lateOctober.advisories.map((a) => a.advisory_id)).toEqual(['2026-Oct']);
  });

  it('summary rows carry the API path (ids with ":" encoded) and severity fields', async () => {
    const [rhsa] = (await list({ vendor: 'redhat', limit: 1 })).advisories;
    expect(rhsa).toMatchObject({
      advisory_id: 'RHSA-2026:9102',
      api_path: '/api/v1/public/vendor-advisories/redhat/RHSA-2026%3A9102',
      has_cve: true,
      cve_ids: ['CVE-2026-90153', 'CVE-2026-90154'],
    });
    expect(rhsa).toHaveProperty('vendor_severity');
    expect(rhsa).toHaveProperty('aggregate_severity');
  });

  it('summary rows carry vendor_severity_evidence, the same text the detail shows', async () => {
    const all = (await list({ limit: 200 })).advisories;
    expect(all.every((a) => 'vendor_severity_evidence' in a)).toBe(true);
    const withEvidence = all.filter((a) => a.vendor_severity_evidence !== null);
    expect(withEvidence.length).toBeGreaterThan(0);
    for (const a of withEvidence.slice(0, 5)) {
      expect((await findVendorAdvisory(sample, a.vendor, a.advisory_id))!.vendor_severity_evidence).toBe(a.vendor_severity_evidence);
    }
  });
});

describe('one advisory', () => {
  it('holds title, description, CVSS, products, remediation, references and the linked CVEs', async () => {
    const advisory = (await findVendorAdvisory(sample, 'microsoft', '2026-Oct'))!;
    expect(advisory).toMatchObject({ vendor: 'microsoft', advisory_id: '2026-Oct', title: 'October 2026 Security Updates', has_cve: true, exploited: true });
    expect(advisory.products).toHaveLength(3);
    expect(advisory.cve_ids).toEqual(['CVE-2026-90103', 'CVE-2026-90107']);
    expect(advisory.cves.map((c) => [c.cve_id, c.exploited, c.api_path])).toEqual([
      ['CVE-2026-90103', true, '/api/v1/public/cves/CVE-2026-90103'],
      ['CVE-2026-90107', false, '/api/v1/public/cves/CVE-2026-90107'],
    ]);
    expect(advisory.cves[0]).toMatchObject({ vendor_severity: 'HIGH', vendor_severity_source: 'microsoft', exploited_evidence: expect.stringContaining('Exploited:Yes') });
    for (const member of ['description', 'cvss_score', 'cvss_vector', 'remediations', 'references', 'vendor_severity_evidence'] as const) {
      expect(advisory, member).toHaveProperty(member);
    }
    expect(Array.isArray(advisory.remediations) && Array.isArray(advisory.references)).toBe(true);
  });

  it('matches vendor and id in any case, and answers with the stored spelling', async () => {
    const advisory = (await findVendorAdvisory(sample, 'REDHAT', 'rhsa-2026:9102'))!;
    expect(advisory.advisory_id).toBe('RHSA-2026:9102');
    expect(advisory.cves.map((c) => c.cve_id)).toEqual(['CVE-2026-90153', 'CVE-2026-90154']);
    expect(advisory.description).toEqual(expect.any(String));
  });

  it('an advisory without a CVE yet has none linked', async () => {
    const advisory = (await findVendorAdvisory(sample, 'cisco', 'cisco-sa-asaftd-ssl-dos-Xq7bRt2'))!;
    expect(advisory).toMatchObject({ has_cve: false, cve_ids: [], cves: [] });
  });

  it('is null for an unknown advisory or vendor', async () => {
    expect(await findVendorAdvisory(sample, 'redhat', 'RHSA-1999:0001')).toBeNull();
    expect(await findVendorAdvisory(sample, 'nobody', '2026-Oct')).toBeNull();
  });
});

describe('a damaged advisories table', () => {
  it('is reported as unavailable, not as "no advisories"', async () => {
    const damaged = await openDamagedSample(['advisories']);
    try {
      await expect(listVendorAdvisories(damaged, { limit: 5, offset: 0 })).rejects.toBeInstanceOf(TableUnavailableError);
      await expect(findVendorAdvisory(damaged, 'redhat', 'RHSA-2026:9102')).rejects.toMatchObject({ table: 'advisories' });
    } finally {
      damaged.close();
    }
  });
});

describe('HTTP', () => {
  let api: SampleServer;
  beforeAll(async () => {
    api = await startSampleServer();
  });
  afterAll(async () => {
    await api?.server.close();
  });
  const page = (query: string) => api.json<AdvisoryPage>(`/api/v1/public/vendor-advisories${query}`);

  it('lists with defaults: limit 50, offset 0, newest first', async () => {
    const { status, body } = await page('');
    expect(status).toBe(200);
    expect(body).toMatchObject({ total: 59, limit: 50, offset: 0 });
    expect(body.advisories).toHaveLength(50);
    expect(body.advisories[0]!.advisory_id).toBe('cisco-sa-asaftd-ssl-dos-Xq7bRt2');
    expect(body.advisories.every((a) => 'vendor_severity_evidence' in a)).toBe(true);
    expect(body.advisories.some((a) => typeof a.vendor_severity_evidence === 'string')).toBe(true);
  });

  it('applies has_cve, vendor, since, limit and offset', async () => {
    expect((await page('?has_cve=false')).body.advisories.map((a) => a.advisory_id)).toEqual(['cisco-sa-asaftd-ssl-dos-Xq7bRt2', 'RHSA-2019:1862']);
    expect((await page('?has_cve=true&limit=5')).body).toMatchObject({ total: 57, limit: 5 });
    expect((await page('?vendor=REDHAT')).body.total).toBe(3);
    expect((await page('?since=2026-11-01')).body.total).toBe(3);
    // RFC 3339 with an offset: 01:00 at +01:00 is midnight UTC, inclusive.
    expect((await page('?since=2026-11-10T01:00:00%2B01:00')).body.total).toBe(2);
    const second = await page('?limit=2&offset=2');
    const both = await page('?limit=4');
    expect(second.body.advisories).toEqual(both.body.advisories.slice(2));
  });

  it('400 INVALID_PARAMETER naming each malformed parameter', async () => {
    for (const [query, parameter] of [
      ['?limit=0', 'limit'],
      ['?limit=201', 'limit'],
      ['?limit=ten', 'limit'],
      ['?offset=-1', 'offset'],
      ['?has_cve=maybe', 'has_cve'],
      ['?since=yesterday', 'since'],
      ['?since=2026-02-30', 'since'],
      ['?vendor=red%20hat', 'vendor'],
      ['?vendor=', 'vendor'],
    ] as const) {
      const { status, body } = await page(query);
      expect(status, query).toBe(400);
      expect(body, query).toMatchObject({ code: 'INVALID_PARAMETER', parameter });
    }
  });

  it('one advisory: ids with ":" raw or encoded, any case; 404 and 400 otherwise', async () => {
    for (const path of ['redhat/RHSA-2026:9102', 'redhat/RHSA-2026%3A9102', 'RedHat/rhsa-2026:9102']) {
      const { status, body } = await api.json<AdvisoryDetail>(`/api/v1/public/vendor-advisories/${path}`);
      expect(status, path).toBe(200);
      expect(body.advisory_id).toBe('RHSA-2026:9102');
      expect(body.cves.map((c) => c.cve_id)).toEqual(['CVE-2026-90153', 'CVE-2026-90154']);
    }
    // A summary row's api_path is the way to the advisory.
    const [first] = (await page('?limit=1')).body.advisories;
    expect((await api.get(first!.api_path)).status).toBe(200);
    expect((await api.json('/api/v1/public/vendor-advisories/redhat/RHSA-1999:0001')).body).toMatchObject({ code: 'NOT_FOUND' });
    expect((await api.json('/api/v1/public/vendor-advisories/redhat/a%2Fb')).status).toBe(404);
    const badVendor = await api.json('/api/v1/public/vendor-advisories/red%20hat/RHSA-2026:9102');
    expect(badVendor.body).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'vendor' });
    const badId = await api.json(`/api/v1/public/vendor-advisories/redhat/${'x'.repeat(201)}`);
    expect(badId.body).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'advisory_id' });
  });

  it('503 SNAPSHOT_TABLE_UNAVAILABLE when the advisories table could not be read', async () => {
    const copy = await damagedSampleDataDir(['advisories']);
    const damaged = await startOn(copy.dataDir, copy.buildId);
    try {
      const { status, body } = await damaged.json('/api/v1/public/vendor-advisories');
      expect(status).toBe(503);
      expect(body).toMatchObject({ code: 'SNAPSHOT_TABLE_UNAVAILABLE', table: 'advisories' });
    } finally {
      await damaged.server.close();
    }
  });
});
