/**
 * Per-reference enrichment (contract 2.7) on the sample snapshot: flags, the cross-walk to a
 * vendor advisory and to GHSA, exploit sources, and exploit records no reference shows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCveReferences, type CveReferences } from '../../api/queries/references.ts';
import type { OpenSnapshot } from '../../api/snapshot/open.ts';
import { openDamagedSample, openSample } from './sample-reader.ts';
import { startSampleServer, type SampleServer } from './server-harness.ts';

let sample: OpenSnapshot;
beforeAll(async () => {
  sample = await openSample();
});
afterAll(() => sample?.close());

const refs = async (cveId: string): Promise<CveReferences> => {
  const result = await findCveReferences(sample, cveId);
  if (!result) throw new Error(`${cveId} not found`);
  return result;
};

describe('references', () => {
  it('cross-walks a reference to the vendor advisory it is, with its API path, listed first', async () => {
    const result = await refs('CVE-2026-90062');
    expect(result.references[0]).toMatchObject({
      is_vendor_advisory: true,
      vendor_advisory: {
        vendor: 'cisco',
        advisory_id: 'cisco-sa-iosxe-webui-privesc-Kq7dTn3',
        api_path: '/api/v1/public/vendor-advisories/cisco/cisco-sa-iosxe-webui-privesc-Kq7dTn3',
      },
    });
    expect(result.references.slice(1).every((r) => r.vendor_advisory === null)).toBe(true);
  });

  it('names the GHSA id of a GitHub advisory URL, and null (not "") elsewhere', async () => {
    const result = await refs('CVE-2026-90303');
    const ghsa = result.references.filter((r) => r.ghsa_id !== null);
    // The repository advisory NVD lists, and the advisory's own page its GHSA record adds.
    expect(ghsa.map((r) => [r.url, r.ghsa_id]).sort()).toEqual([
      ['https://github.com/advisories/GHSA-c8m3-9x2q-pvw4', 'GHSA-c8m3-9x2q-pvw4'],
      ['https://github.com/pytorch/pytorch/security/advisories/GHSA-c8m3-9x2q-pvw4', 'GHSA-c8m3-9x2q-pvw4'],
    ]);
    const other = await refs('CVE-2026-90121');
    expect(other.references.every((r) => r.ghsa_id === null)).toBe(true);
  });

  it('flags patches and exploits, with the exploit database that lists the URL', async () => {
    const result = await refs('CVE-2026-90121');
    const poc = result.references.find((r) => r.url === 'https://github.com/h4x0r-lab/CVE-2026-90121');
    expect(poc).toMatchObject({ is_exploit: true, is_patch: false, exploit_source: 'poc-in-github', tags: ['exploit'] });
    expect(result.references.filter((r) => r.is_patch).map((r) => r.url)).toEqual([
      'https://github.com/apache/ofbiz-framework/commit/6f2e1d5c0b9a8e7f6d5c4b3a2918e7d6c5b4a391',
    ]);
    for (const r of result.references) expect(r.sources.length).toBeGreaterThan(0);
  });

  it('adds the exploit records no reference already shows', async () => {
    const result = await refs('CVE-2026-90121');
    expect(result.exploits.map((e) => e.source).sort()).toEqual(['exploitdb', 'metasploit', 'nuclei', 'poc-in-github']);
    expect(result.exploits.map((e) => e.url)).not.toContain('https://github.com/h4x0r-lab/CVE-2026-90121');
    // The only Exploit-DB record of CVE-2026-90122 is one of its references.
    const shown = await refs('CVE-2026-90122');
    expect(shown.references.find((r) => r.exploit_source === 'exploitdb')).toBeDefined();
    expect(shown.exploits).toEqual([]);
  });

  it("takes NVD's trailing-slash spelling of an Exploit-DB page for the Exploit-DB record it is", async () => {
    // NVD's real record of CVE-2017-0144 lists https://www.exploit-db.com/exploits/42031/; the
    // Exploit-DB record 42031 is https://www.exploit-db.com/exploits/42031. One exploit, shown
    // once: the reference names its database, and it is no second, unreferenced exploit.
    const result = await refs('CVE-2017-0144');
    expect(result.references.find((r) => r.url === 'https://www.exploit-db.com/exploits/42031/')).toMatchObject({
      is_exploit: true,
      exploit_source: 'exploitdb',
    });
    expect(result.exploits.map((e) => e.exploit_id)).toEqual(['42315', 'exploit/windows/smb/ms17_010_eternalblue']);
  });

  it('is null for a CVE the snapshot does not hold; empty lists for one without references', async () => {
    expect(await findCveReferences(sample, 'CVE-1900-0001')).toBeNull();
    expect((await refs('CVE-2026-90121')).failed_sections).toEqual([]);
  });

  it('a damaged references table is named; exploit records are still served, all of them', async () => {
    const damaged = await openDamagedSample(['references']);
    try {
      const result = (await findCveReferences(damaged, 'CVE-2026-90121'))!;
      expect(result.failed_sections).toEqual(['references']);
      expect(result.references).toEqual([]);
      expect(result.exploits).toHaveLength(5);
    } finally {
      damaged.close();
    }
  });
});

describe('GET /api/v1/public/cves/{id}/references', () => {
  let api: SampleServer;
  beforeAll(async () => {
    api = await startSampleServer();
  });
  afterAll(async () => {
    await api?.server.close();
  });

  it('answers the references and the unreferenced exploits', async () => {
    const { status, body } = await api.json<CveReferences>('/api/v1/public/cves/CVE-2026-90062/references');
    expect(status).toBe(200);
    expect(body).toEqual(await refs('CVE-2026-90062'));
    // The cross-walk's API path leads to the advisory.
    const advisory = await api.get(body.references[0]!.vendor_advisory!.api_path);
    expect(advisory.status).toBe(200);
    expect(((await advisory.json()) as { cve_ids: string[] }).cve_ids).toContain('CVE-2026-90062');
  });

  it('serves the Exploit-DB record NVD lists with a trailing slash once, in references and in enrichment', async () => {
    const { body } = await api.json<CveReferences>('/api/v1/public/cves/CVE-2017-0144/references');
    expect(body.references.find((r) => r.url === 'https://www.exploit-db.com/exploits/42031/')!.exploit_source).toBe('exploitdb');
    expect(body.exploits.map((e) => e.exploit_id)).not.toContain('42031');
    const enrichment = await api.json<{ exploits: Array<{ url: string; exploit_id: string | null }> }>('/api/v1/public/cves/CVE-2017-0144/enrichment');
    expect(enrichment.body.exploits.filter((e) => e.url.includes('/exploits/42031'))).toEqual([
      expect.objectContaining({ exploit_id: '42031', url: 'https://www.exploit-db.com/exploits/42031/' }),
    ]);
  });

  it('404 for an unknown CVE, 400 naming id for a malformed one', async () => {
    expect((await api.json('/api/v1/public/cves/CVE-1900-0001/references')).body).toMatchObject({ code: 'NOT_FOUND' });
    const bad = await api.json('/api/v1/public/cves/CVE-XXXX-1234/references');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'id' });
  });
});
