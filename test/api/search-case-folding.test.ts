/**
 * Searches and the index lower-case text alike. The index (sql/07_search_terms.sql) and the SQL
 * of the change filter are lower-cased by DuckDB's lower(), one code point at a time: `İ` is
 * `i`, and a capital sigma is `σ` wherever it stands. JavaScript's toLowerCase() makes `İ` two
 * code points (`i` and a combining dot, which the folding then turns into a word break) and a
 * word-final sigma `ς`, so a search for `İSTANBUL` looked for the words `i` and `stanbul`, and
 * one for `ΟΔΟΣ` for `οδος`: neither met the text it was typed from.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normaliseWords } from '../../api/search/parse.ts';
import { changeFilterSql } from '../../api/queries/changes.ts';
import { changeMatches, type ChangeRow } from '../../lib/changes/model.ts';
import { buildCorpus } from '../helpers/sample-snapshot.ts';
import { writeCorpus } from '../helpers/raw-corpus.ts';
import { ids, startOn, type SampleServer } from './server-harness.ts';

const TEXTS = ['Path traversal in the İSTANBUL portal', 'ΟΔΟΣ gateway: ΣΥΣΤΗΜΑ ΑΣΦΑΛΕΙΑΣ overflow', 'Ǆemal ΣΣ straße KELVIN'];

let duck: Awaited<ReturnType<Awaited<ReturnType<typeof DuckDBInstance.create>>['connect']>>;
let api: SampleServer;

beforeAll(async () => {
  duck = await (await DuckDBInstance.create(':memory:')).connect();
  const raw = await writeCorpus({
    nvd: [
      { id: 'CVE-2024-20101', description: TEXTS[0] },
      { id: 'CVE-2024-20102', description: TEXTS[1] },
      { id: 'CVE-2024-20103', description: 'An unrelated istanbul gateway.' },
      { id: 'CVE-2024-20104', description: 'A flaw named by its vendor alone.' },
    ],
    // The parsers lower-case affected[] names with toLowerCase(): `İNNOVA` arrives as `i̇nnova`.
    cve5: [{ id: 'CVE-2024-20104', cnaDateUpdated: '2024-05-01T00:00:00.000Z', affected: { vendor: 'İNNOVA Bilişim', product: 'Kiosk' } }],
  });
  const { dataDir, result } = await buildCorpus(raw);
  api = await startOn(dataDir, result.buildId);
}, 120_000);

afterAll(async () => {
  duck?.closeSync();
  await api?.server.close();
});

/** The words of `text` as sql/07_search_terms.sql writes them into the index. */
async function indexWords(text: string): Promise<string[]> {
  const reader = await duck.runAndReadAll(`SELECT trim(regexp_replace(lower($1), '[^\\p{L}\\p{N}]+', ' ', 'g')) AS t`, [text]);
  return (reader.getRows()[0]![0] as string).split(' ').filter((w) => w !== '');
}

describe('search words are lower-cased as the index lower-cases its text', () => {
  it.each(TEXTS)('%s', async (text) => {
    expect(normaliseWords(text)).toEqual(await indexWords(text));
  });

  it('a search typed in capitals finds the CVE whose text it was typed from', async () => {
    const search = async (q: string) => ids((await api.json<{ cves: { cve_id: string }[] }>(`/api/v1/public/cves?search=${encodeURIComponent(q)}`)).body);
    expect(await search('İSTANBUL portal')).toEqual(['CVE-2024-20101']);
    expect(await search('"the İSTANBUL portal"')).toEqual(['CVE-2024-20101']);
    expect(await search('ΟΔΟΣ')).toEqual(['CVE-2024-20102']);
    expect(await search('"ΟΔΟΣ gateway"')).toEqual(['CVE-2024-20102']);
    expect(await search('ΑΣΦΑΛΕΙΑΣ')).toEqual(['CVE-2024-20102']);
    // A vendor the CVE names only in its affected[] products.
    expect(await search('İNNOVA')).toEqual(['CVE-2024-20104']);
    expect(await search('innova kiosk')).toEqual(['CVE-2024-20104']);
  });
});

describe('the change filter\'s search reads the same in SQL (/changes) and in changeMatches (alerts)', () => {
  const change = (title: string) => ({ cve_id: 'CVE-2024-20102', advisory_id: null, vendor: null, title, why: 'New CVE.', vendors: [], products: [] }) as unknown as ChangeRow;

  it.each([
    ['ΟΔΟΣ gateway', 'ΟΔΟΣ'],
    ['ΟΔΟΣ gateway', 'οδοσ'],
    ['the İSTANBUL portal', 'İSTANBUL'],
    ['the İSTANBUL portal', 'istanbul'],
  ])('title %s, search %s', async (title, search) => {
    const values: string[] = [];
    const params = { values, add: (v: unknown) => `$${values.push(v as string)}` };
    const where = changeFilterSql({ search }, params);
    const sql = `SELECT count(*)::INTEGER FROM (SELECT 'CVE-2024-20102' AS cve_id, NULL::VARCHAR AS advisory_id, NULL::VARCHAR AS vendor, $${values.length + 1} AS title, 'New CVE.' AS why, []::VARCHAR[] AS vendors, []::VARCHAR[] AS products) WHERE ${where.map((w) => `(${w})`).join(' AND ')}`;
    const reader = await duck.runAndReadAll(sql, [...values, title]);
    const inSql = reader.getRows()[0]![0] === 1;
    expect(changeMatches({ search }, change(title))).toBe(inSql);
    expect(inSql).toBe(true);
  });
});
