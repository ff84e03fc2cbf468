/**
 * Enrichment of one CVE (contract 2.6) on the sample snapshot: fixed_branches exactly as stored
 * (null vs []), the other sections, the dated timeline, and `failed_sections` for a damaged side
 * table and for a section whose query fails.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENRICHMENT_SECTIONS, findCveEnrichment, type CveEnrichment } from '../../api/queries/enrichment.ts';
import type { OpenSnapshot } from '../../api/snapshot/open.ts';
import { SAMPLE_RAW } from '../helpers/sample-snapshot.ts';
import { damagedSampleDataDir, openDamagedSample, openSample, openSampleCopy } from './sample-reader.ts';
import { startOn, startSampleServer, type SampleServer } from './server-harness.ts';

const expected = JSON.parse(readFileSync(join(SAMPLE_RAW, 'expected.json'), 'utf8')) as {
  cves: Record<string, { enrichment?: Record<string, { fixed_branches: unknown[] | null }> }>;
};

let sample: OpenSnapshot;
beforeAll(async () => {
  sample = await openSample();
});
afterAll(() => sample?.close());

const enrich = async (cveId: string): Promise<CveEnrichment> => {
  const result = await findCveEnrichment(sample, cveId);
  if (!result) throw new Error(`${cveId} not found`);
  return result;
};

describe('affected_packages and fixed versions', () => {
  const cases = Object.entries(expected.cves).flatMap(([cveId, v]) => Object.entries(v.enrichment ?? {}).map(([pkg, e]) => [cveId, pkg, e.fixed_branches] as const));

  it('has cases for null, [] and several branches', () => {
    expect(cases.some(([, , b]) => b === null)).toBe(true);
    expect(cases.some(([, , b]) => Array.isArray(b) && b.length === 0)).toBe(true);
    expect(cases.some(([, , b]) => Array.isArray(b) && b.length > 2)).toBe(true);
  });

  it.each(cases)('%s %s: fixed_branches as expected.json says', async (cveId, pkg, branches) => {
    const result = await enrich(cveId);
    const row = result.affected_packages.find((p) => `${p.ecosystem}/${p.package_name}` === pkg || p.package_name === pkg);
    expect(row, pkg).toBeDefined();
    // `source` of a branch is not fixed by expected.json; everything else is.
    const got = row!.fixed_branches === null ? null : row!.fixed_branches.map(({ source: _source, ...b }) => b);
    expect(got).toEqual(branches);
  });

  it('keeps null and [] apart through JSON', async () => {
    const never = JSON.stringify(await enrich('CVE-2026-90305'));
    expect(never).toContain('"fixed_branches":null');
    const none = JSON.stringify(await enrich('CVE-2026-90304'));
    expect(none).toContain('"fixed_branches":[]');
    expect((await enrich('CVE-2026-90305')).affected_packages[0]).toMatchObject({ source: 'cve_list', fixed_version: null });
  });

  it('fixed_version is one range fix; fixed_versions lists every distinct fix in order', async () => {
    const result = await enrich('CVE-2026-90301');
    expect(result.affected_packages[0]).toMatchObject({ ecosystem: 'PyPI', package_name: 'mlflow', fixed_version: '2.16.0' });
    expect(result.fixed_versions).toEqual([
      { ecosystem: 'PyPI', package_name: 'mlflow', purl: null, fixed: ['2.16.0', '2.17.2'], advisory_ids: ['GHSA-4r6w-x8vq-mc9j'] },
    ]);
    // No fix on record: no fixed_versions row, though the package is affected.
    expect((await enrich('CVE-2026-90304')).fixed_versions).toEqual([]);
  });
});

describe('other sections', () => {
  it('vendor advisories carry the per-CVE band, exploitation evidence, remediation and the API path', async () => {
    const result = await enrich('CVE-2026-90103');
    expect(result.vendor_advisories).toEqual([
      expect.objectContaining({
        vendor: 'microsoft',
        advisory_id: '2026-Oct',
        api_path: '/api/v1/public/vendor-advisories/microsoft/2026-Oct',
        vendor_severity: 'HIGH',
        vendor_severity_source: 'microsoft',
        vendor_severity_evidence: 'Important',
        exploited: true,
        cwe_id: 'CWE-122',
      }),
    ]);
    expect(result.vendor_advisories[0]!.remediations[0]).toMatchObject({ category: 'vendor_fix' });
  });

  it('patches are the references tagged as patches', async () => {
    expect((await enrich('CVE-2026-90121')).patches.map((p) => p.url)).toEqual([
      'https://github.com/apache/ofbiz-framework/commit/6f2e1d5c0b9a8e7f6d5c4b3a2918e7d6c5b4a391',
    ]);
  });

  it('cwes come with their catalog names', async () => {
    expect((await enrich('CVE-2026-90301')).cwes).toEqual([
      { cwe_id: 'CWE-22', name: "Improper Limitation of a Pathname to a Restricted Directory ('Path Traversal')", abstraction: 'Base' },
    ]);
  });

  it('exploits: every exploit record, then exploit-tagged references no record shows', async () => {
    const records = (await enrich('CVE-2026-90121')).exploits;
    expect(records.map((e) => e.source).sort()).toEqual(['exploitdb', 'metasploit', 'nuclei', 'poc-in-github', 'poc-in-github']);
    expect(records.every((e) => e.from_exploit_record)).toBe(true);
    const tagged = (await enrich('CVE-2026-90301')).exploits;
    expect(tagged).toEqual([expect.objectContaining({ source: 'reference', url: expect.stringContaining('huntr.com'), from_exploit_record: false })]);
  });

  it('timeline: dated events of every source, in date order', async () => {
    const events = (id: string) => enrich(id).then((r) => r.timeline);
    const exploited = await events('CVE-2026-90121');
    expect(exploited.map((e) => e.event)).toEqual([
      'exploit_published', 'published', 'exploit_published', 'exploit_published', 'last_modified', 'exploit_published', 'epss_scored',
    ]);
    expect(exploited.find((e) => e.source === 'exploitdb')).toEqual({ date: '2026-10-09T00:00:00.000Z', event: 'exploit_published', source: 'exploitdb', ref: '52425' });
    expect((await events('CVE-2026-90103')).map((e) => e.event)).toContain('vendor_advisory_published');
    expect((await events('CVE-2026-90301')).find((e) => e.event === 'ghsa_published')).toMatchObject({ source: 'ghsa', ref: 'GHSA-4r6w-x8vq-mc9j' });
    expect((await events('CVE-2026-90104')).find((e) => e.event === 'kev_added')).toMatchObject({ date: '2026-10-07T00:00:00.000Z', source: 'kev' });
    for (const id of ['CVE-2026-90121', 'CVE-2026-90103', 'CVE-2026-90301', 'CVE-2026-90104', 'CVE-2017-0144']) {
      const dates = (await events(id)).map((e) => e.date);
      expect(dates).toEqual([...dates].sort());
    }
  });

  it('names no failed section on a healthy snapshot, and every section is present', async () => {
    const result = await enrich('CVE-2026-90121');
    expect(result.failed_sections).toEqual([]);
    for (const section of ENRICHMENT_SECTIONS) expect(Array.isArray(result[section]), section).toBe(true);
  });

  it('is null for a CVE the snapshot does not hold', async () => {
    expect(await findCveEnrichment(sample, 'CVE-1900-0001')).toBeNull();
  });
});

describe('failed_sections', () => {
  it('names the sections of a damaged side table, serves them empty and the rest intact', async () => {
    const damaged = await openDamagedSample(['exploits', 'cwes']);
    try {
      expect([...damaged.unreadableTables].sort()).toEqual(['cwes', 'exploits']);
      const result = (await findCveEnrichment(damaged, 'CVE-2026-90121'))!;
      expect(result.failed_sections).toEqual(['cwes', 'exploits', 'timeline']);
      expect(result.cwes).toEqual([]);
      expect(result.exploits).toEqual([]);
      expect(result.timeline).toEqual([]);
      expect(result.patches).toHaveLength(1);
      const mlflow = (await findCveEnrichment(damaged, 'CVE-2026-90301'))!;
      expect(mlflow.affected_packages[0]!.fixed_branches).toHaveLength(4);
    } finally {
      damaged.close();
    }
  });

  it('a damaged affected_packages table fails fixed_versions with it', async () => {
    const damaged = await openDamagedSample(['affected_packages']);
    try {
      const result = (await findCveEnrichment(damaged, 'CVE-2026-90301'))!;
      expect(result.failed_sections).toEqual(['fixed_versions', 'affected_packages']);
      expect(result.affected_packages).toEqual([]);
      expect(result.cwes).toHaveLength(1);
    } finally {
      damaged.close();
    }
  });

  it('names a section whose query fails, and reports the error', async () => {
    const broken = await openSampleCopy();
    try {
      // A table of the wrong shape makes the section's query fail although the table loaded.
      await broken.connection.run(`DROP TABLE cwes; CREATE TABLE cwes AS SELECT 'CWE-22' AS cwe`);
      const errors: string[] = [];
      const result = (await findCveEnrichment(broken, 'CVE-2026-90301', { onSectionError: (s) => errors.push(s) }))!;
      expect(result.failed_sections).toEqual(['cwes']);
      expect(errors).toEqual(['cwes']);
      expect(result.cwes).toEqual([]);
      expect(result.affected_packages).toHaveLength(1);
    } finally {
      broken.close();
    }
  });
});

describe('GET /api/v1/public/cves/{id}/enrichment', () => {
  let api: SampleServer;
  let damaged: SampleServer;
  beforeAll(async () => {
    api = await startSampleServer();
    const copy = await damagedSampleDataDir(['exploits']);
    damaged = await startOn(copy.dataDir, copy.buildId);
  });
  afterAll(async () => {
    await api?.server.close();
    await damaged?.server.close();
  });

  it('answers every section; fixed_branches null and [] survive the wire', async () => {
    const never = await api.get('/api/v1/public/cves/CVE-2026-90305/enrichment');
    expect(never.status).toBe(200);
    const text = await never.text();
    expect(text).toContain('"fixed_branches":null');
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(await enrich('CVE-2026-90305'))));
    const none = await api.json<CveEnrichment>('/api/v1/public/cves/cve-2026-90304/enrichment');
    expect(none.body.affected_packages[0]!.fixed_branches).toEqual([]);
    expect(none.body.failed_sections).toEqual([]);
  });

  it('names the sections of a damaged table and still answers 200', async () => {
    const { status, body } = await damaged.json<CveEnrichment>('/api/v1/public/cves/CVE-2026-90121/enrichment');
    expect(status).toBe(200);
    expect(body.failed_sections).toEqual(['exploits', 'timeline']);
    expect(body.exploits).toEqual([]);
    expect(body.patches).toHaveLength(1);
  });

  it('404 for an unknown CVE, 400 naming id for a malformed one', async () => {
    expect((await api.json('/api/v1/public/cves/CVE-1900-0001/enrichment')).status).toBe(404);
    const bad = await api.json('/api/v1/public/cves/2024-3400/enrichment');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'id' });
  });
});
