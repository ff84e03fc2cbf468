/**
 * The products table (sql/05_side_tables.sql): one row per CVE and normalised vendor/product
 * key, whichever feeds name it, and the search text made from them (sql/07_search_terms.sql).
 * The display spelling of a key named differently by NVD's CPE and the CNA's `affected[]` (both
 * lower-cased by the parsers) is the same in every build: the least, which is the CNA's spaced
 * one (a space sorts before CPE's underscore).
 */
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { readCurrentBuildId, snapshotsDir, tableReader } from '../../lib/snapshot-layout.ts';
import { productKey } from '../../api/routes/cves.ts';
import { buildCorpus } from '../helpers/sample-snapshot.ts';
import { writeCorpus, type Corpus } from '../helpers/raw-corpus.ts';

const CPE = 'cpe:2.3:a:pixcor_labs:pixcor_cms:*:*:*:*:*:*:*:*';

const corpus: Corpus = {
  nvd: [
    { id: 'CVE-2024-20001', cpes: [CPE] },
    { id: 'CVE-2024-20002', cpes: [CPE] },
    { id: 'CVE-2024-20003', cpes: ['cpe:2.3:a:zeta:app:*:*:*:*:*:*:*:*', 'cpe:2.3:a:alpha:tool:*:*:*:*:*:*:*:*'] },
  ],
  cve5: [
    { id: 'CVE-2024-20001', cnaDateUpdated: '2024-05-01T00:00:00.000Z', affected: { vendor: 'Pixcor Labs', product: 'Pixcor CMS' } },
    // Names pasted from a web page: a no-break space, a narrow one, a vertical tab.
    { id: 'CVE-2024-20004', cnaDateUpdated: '2024-05-01T00:00:00.000Z', affected: { vendor: 'Pixcor\u00a0Labs', product: 'Pixcor\u202fCMS\u000bPro' } },
  ],
};

interface ProductRow {
  cve_id: string;
  vendor_key: string;
  product_key: string;
  vendor: string;
  product: string;
  feeds: string[];
  cpes: string[] | null;
}

let rows: ProductRow[] = [];
let searchText = new Map<string, string>();

beforeAll(async () => {
  const { dataDir } = await buildCorpus(await writeCorpus(corpus));
  const snapshot = join(snapshotsDir(dataDir), (await readCurrentBuildId(dataDir))!);
  const db = await (await DuckDBInstance.create(':memory:')).connect();
  const reader = await db.runAndReadAll(`SELECT * FROM ${tableReader(snapshot, 'products')} ORDER BY cve_id`);
  rows = (reader.getRowObjectsJson() as unknown as ProductRow[]).filter((r) => r.vendor_key === 'pixcor_labs');
  const docs = await db.runAndReadAll(`SELECT cve_id, text FROM ${tableReader(snapshot, 'search_docs')}`);
  searchText = new Map(docs.getRows() as [string, string][]);
}, 120_000);

describe('products', () => {
  it('gathers the CPE and the CNA naming of one key into one row, with the feeds and the CPE', () => {
    expect(rows.map((r) => [r.cve_id, r.vendor_key, r.product_key, r.feeds, r.cpes])).toEqual([
      ['CVE-2024-20001', 'pixcor_labs', 'pixcor_cms', ['cve5', 'nvd'], [CPE]],
      ['CVE-2024-20002', 'pixcor_labs', 'pixcor_cms', ['nvd'], [CPE]],
      ['CVE-2024-20004', 'pixcor_labs', 'pixcor_cms_pro', ['cve5'], null],
    ]);
  });

  it('folds every white space the API folds: a key is found by the name as typed and by the key itself', () => {
    // /cves/match, the pulse filters and /vendors normalise the caller's text with JavaScript's
    // \s; the keys were made with DuckDB's, which is ASCII only: `pixcor\u00a0labs` was served by
    // /vendors and could not be found by /cves/match, not even by that key.
    const row = rows.find((r) => r.cve_id === 'CVE-2024-20004')!;
    expect(row.vendor_key).toBe(productKey('Pixcor\u00a0Labs'));
    expect(productKey(row.vendor_key)).toBe(row.vendor_key);
    expect(row.product_key).toBe(productKey('pixcor cms pro'));
  });

  it('names a key with the least of its spellings: the CNA one where it has one, else the CPE one', () => {
    expect(rows.map((r) => [r.vendor, r.product])).toEqual([
      ['pixcor labs', 'pixcor cms'],
      ['pixcor_labs', 'pixcor_cms'],
      ['pixcor\u00a0labs', 'pixcor\u202fcms\u000bpro'],
    ]);
  });
});

describe('search text', () => {
  it('is the id and description, then the product names sorted, whatever order the record lists them in', () => {
    expect(searchText.get('CVE-2024-20003')).toBe(' cve 2024 20003 test vulnerability cve 2024 20003 alpha tool zeta app ');
  });
});
