/**
 * Real published records through the whole build, read back the way the API serves them:
 * NVD's records (fkie-cad/nvd-json-data-feeds, byte for byte) of CVE-2024-2453 beside the CISA
 * ICS CSAF advisory that covers it (cisagov/CSAF icsa-24-081-01.json), and of CVE-2024-41909
 * (Received, no metric) beside the GitHub advisory naming it (GHSA-2326-hx7g-3m9r); NVD's
 * CVE-2023-4966 and CVE-2024-1086, the latter beside its CISA Vulnrichment CVE 5 record.
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCveReferences } from '../../api/queries/references.ts';
import { openSnapshot, type OpenSnapshot } from '../../api/snapshot/open.ts';
import { RecordStore } from '../../api/snapshot/records.ts';
import { readDocColumns } from '../../cli/build/serving.ts';
import { buildCorpus } from '../helpers/sample-snapshot.ts';
import { nvdPage } from '../helpers/raw-corpus.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

let snapshot: OpenSnapshot;

beforeAll(async () => {
  const raw = await mkdtemp(join(tmpdir(), 'vulnintel-real-'));
  const records: Record<string, unknown>[] = [];
  for (const id of ['CVE-2024-2453', 'CVE-2024-41909', 'CVE-2023-4966', 'CVE-2024-1086']) {
    records.push(JSON.parse(await readFile(join(FIXTURES, `nvd/records/${id}.json`), 'utf8')) as Record<string, unknown>);
  }
  await mkdir(join(raw, 'nvd'), { recursive: true });
  await writeFile(join(raw, 'nvd/page-000000.json'), JSON.stringify(nvdPage(records)));
  await mkdir(join(raw, 'ghsa'), { recursive: true });
  await writeFile(join(raw, 'ghsa/GHSA-2326-hx7g-3m9r.json'), await readFile(join(FIXTURES, 'ghsa/GHSA-2326-hx7g-3m9r.json')));
  await mkdir(join(raw, 'cvelist/vulnrichment/2024/1xxx'), { recursive: true });
  await writeFile(join(raw, 'cvelist/vulnrichment/2024/1xxx/CVE-2024-1086.json'), await readFile(join(FIXTURES, 'cvelist/records/vulnrichment-CVE-2024-1086.json')));
  await mkdir(join(raw, 'csaf/cisa/2024'), { recursive: true });
  await writeFile(join(raw, 'csaf/cisa/2024/icsa-24-081-01.json'), await readFile(join(FIXTURES, 'csaf/cisa/2024/icsa-24-081-01.json')));
  const { dataDir, result } = await buildCorpus(raw);
  snapshot = await openSnapshot(dataDir, result.buildId, { threads: 1, memoryLimit: '512MB' });
}, 120_000);
afterAll(() => snapshot?.close());

/** The CVE record as GET /cves/{id} serves it (the serving files' bytes). */
function servedRecord(cveId: string): Record<string, unknown> {
  const records = RecordStore.open(snapshot.servingDir, readDocColumns(snapshot.servingDir));
  try {
    const doc = records.docOf(cveId);
    if (doc === undefined) throw new Error(`${cveId} not served`);
    return JSON.parse(records.bytes(doc).toString('utf8')) as Record<string, unknown>;
  } finally {
    records.close();
  }
}

describe('CVE-2024-2453 and CISA ICSA-24-081-01', () => {
  it("cross-walks NVD's reference to the advisory's web page, the document's second self reference", async () => {
    // The document calls itself by its JSON file first and its web page second; NVD's record
    // (from the CNA and the CVE Program container) carries the web page.
    const refs = (await findCveReferences(snapshot, 'CVE-2024-2453'))!;
    expect(refs.references).toHaveLength(1);
    expect(refs.references[0]).toMatchObject({
      url: 'https://www.cisa.gov/news-events/ics-advisories/icsa-24-081-01',
      is_vendor_advisory: true,
      vendor_advisory: { vendor: 'cisa', advisory_id: 'ICSA-24-081-01', api_path: '/api/v1/public/vendor-advisories/cisa/ICSA-24-081-01' },
    });
  });

  it('serves the description without the line breaks NVD has around it', () => {
    // NVD's text is "\nThere is an SQL injection … on the remote database.\n\n".
    const description = servedRecord('CVE-2024-2453').description as string;
    expect(description.startsWith('There is an SQL injection vulnerability in Advantech WebAccess/SCADA')).toBe(true);
    expect(description.endsWith('read or modify data on the remote database.')).toBe(true);
  });
});

describe('CVE-2024-41909 and GHSA-2326-hx7g-3m9r', () => {
  it("lists the GitHub advisory's page and references beside NVD's, each with the feeds that list it", async () => {
    // NVD lists two URLs; the advisory lists nine (its fix commits among them) and has its page.
    const refs = (await findCveReferences(snapshot, 'CVE-2024-41909'))!;
    const byUrl = new Map(refs.references.map((r) => [r.url, r]));
    expect(refs.references).toHaveLength(10);
    expect(byUrl.get('https://github.com/advisories/GHSA-2326-hx7g-3m9r')).toMatchObject({
      ghsa_id: 'GHSA-2326-hx7g-3m9r',
      sources: ['GHSA-2326-hx7g-3m9r'],
      tags: ['advisory'],
    });
    expect(byUrl.get('https://github.com/apache/mina-sshd/commit/315739e4e9d1dc7a4ff32ea64936982ed0b73e76')).toMatchObject({
      sources: ['GHSA-2326-hx7g-3m9r'],
      tags: ['web'],
    });
    expect(byUrl.get('https://github.com/apache/mina-sshd/issues/445')!.sources).toEqual(['GHSA-2326-hx7g-3m9r', 'security@apache.org']);
    expect(servedRecord('CVE-2024-41909').ghsa_ids).toEqual(['GHSA-2326-hx7g-3m9r']);
  });
});

describe("NVD's and the CVE List's words for a reference tag", () => {
  it("serves NVD's `US Government Resource` as the CVE 5 schema's `government-resource`, as the CVE List's copy of the same kind of link", async () => {
    // NVD tags CISA-ADP's KEV link of CVE-2023-4966 `US Government Resource`; CISA's
    // Vulnrichment record of CVE-2024-1086 tags its KEV link `government-resource` (NVD's copy
    // of that one has no tag). One tag, one spelling, whichever feed said it.
    const kevLink = async (cveId: string) =>
      (await findCveReferences(snapshot, cveId))!.references.find((r) => r.url.startsWith('https://www.cisa.gov/known-exploited-vulnerabilities-catalog'))!;
    expect((await kevLink('CVE-2023-4966')).tags).toEqual(['government-resource']);
    expect((await kevLink('CVE-2024-1086')).tags).toEqual(['government-resource']);
  });
});
