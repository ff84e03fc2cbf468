/** How the build merges a CVE's descriptive fields from NVD and the CVE List (sql/02_merge.sql). */
import { beforeAll, describe, expect, it } from 'vitest';
import { builtCveRows, type CveRow } from '../helpers/sample-snapshot.ts';
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
  ],
};

let rows: Map<string, CveRow>;
beforeAll(async () => {
  rows = await builtCveRows(await writeCorpus(corpus));
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
