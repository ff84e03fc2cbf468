/** How the build merges a CVE's descriptive fields from NVD and the CVE List (sql/02_merge.sql). */
import { beforeAll, describe, expect, it } from 'vitest';
import { builtCveRows, snapshotTableRows, type CveRow } from '../helpers/sample-snapshot.ts';
import { writeCorpus, type Corpus } from '../helpers/raw-corpus.ts';

const corpus: Corpus = {
  nvd: [
    { id: 'CVE-2024-31001', cveTags: ['disputed'] },
    { id: 'CVE-2024-31002' },
    { id: 'CVE-2024-31004', cveTags: ['unsupported-when-assigned'] },
  ],
  cve5: [
    // The CNA has since added a tag NVD has not copied yet.
    { id: 'CVE-2024-31001', cnaDateUpdated: '2024-06-02T00:00:00Z', cnaTags: ['disputed', 'exclusively-hosted-service'] },
    // NVD has not analysed it: the CNA's tag is all there is.
    { id: 'CVE-2024-31003', cnaDateUpdated: '2024-06-02T00:00:00Z', cnaTags: ['disputed', 'disputed'] },
    { id: 'CVE-2024-31004', cnaDateUpdated: '2024-06-02T00:00:00Z' },
    // The CNA spells the PyPI package with an underscore, GHSA with a hyphen: one package.
    { id: 'CVE-2024-31005', cnaDateUpdated: '2024-06-02T00:00:00Z', affected: { vendor: 'kv', product: 'mooncake', packageName: 'Mooncake_Transfer.Engine', collectionURL: 'https://pypi.org' } },
    // A package only the CVE record names stays, without ranges.
    { id: 'CVE-2024-31006', cnaDateUpdated: '2024-06-02T00:00:00Z', affected: { vendor: 'kv', product: 'other', packageName: 'other-tool', collectionURL: 'https://pypi.org' } },
  ],
  ghsa: [{ id: 'GHSA-3100-5000-7000', cve: 'CVE-2024-31005', ecosystem: 'PyPI', packageName: 'mooncake-transfer-engine' }],
};

let rawDir: string;
let rows: Map<string, CveRow>;
beforeAll(async () => {
  rawDir = await writeCorpus(corpus);
  rows = await builtCveRows(rawDir);
});

describe('cve_tags', () => {
  it("are NVD's copy of the CNA's tags, then those only the CVE List record holds, each once", () => {
    expect(rows.get('CVE-2024-31001')!.cve_tags).toEqual(['disputed', 'exclusively-hosted-service']);
    expect(rows.get('CVE-2024-31003')!.cve_tags).toEqual(['disputed']);
    expect(rows.get('CVE-2024-31004')!.cve_tags).toEqual(['unsupported-when-assigned']);
    expect(rows.get('CVE-2024-31002')!.cve_tags).toEqual([]);
  });

  it('are in the served record', () => {
    expect(JSON.parse(rows.get('CVE-2024-31003')!.record_json).cve_tags).toEqual(['disputed']);
  });
});

describe('affected_packages', () => {
  it("a package the CVE record names is not listed again beside the advisory's row when only its spelling differs (PEP 503 for PyPI)", async () => {
    const packages = (await snapshotTableRows(rawDir, 'affected_packages')) as Array<{ cve_id: string; package_name: string; source: string }>;
    expect(packages.filter((p) => p.cve_id === 'CVE-2024-31005').map((p) => [p.package_name, p.source])).toEqual([['mooncake-transfer-engine', 'osv']]);
    expect(packages.filter((p) => p.cve_id === 'CVE-2024-31006').map((p) => [p.package_name, p.source])).toEqual([['other-tool', 'cve_list']]);
  });
});
