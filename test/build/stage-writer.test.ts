/**
 * The staging writer encodes each row into a per-table buffer and writes it when full: every
 * row must come back, in order, as one JSON line, whatever its length or characters.
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NdjsonStageWriter } from '../../cli/stage/writer.ts';
import type { ReferenceRow } from '../../cli/stage/tables.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vulnintel-stage-writer-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function lines(table: string, part: string): Promise<unknown[]> {
  const text = await readFile(join(dir, table, `${part}.ndjson`), 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text.slice(0, -1).split('\n').map((line) => JSON.parse(line));
}

describe('NdjsonStageWriter', () => {
  it('writes every row in order across many buffers, long and multi-byte lines included', async () => {
    const writer = new NdjsonStageWriter(dir, 'lane0');
    const names = ['plain', 'é ü ß', '日本語の説明', 'emoji \u{1f600}\u{1f680}', 'quote " and \\ backslash', 'line\nbreak\ttab\u0001'];
    const rows: ReferenceRow[] = [];
    for (let i = 0; i < 30_000; i++) {
      // Some rows far beyond the 1 MiB buffer, of 3-byte and 4-byte UTF-8 characters.
      const name = i % 9_999 === 7 ? '語'.repeat(400_000 + i) : i % 10_001 === 3 ? '\u{1f600}'.repeat(300_000) : names[i % names.length]!;
      rows.push({ cve_id: `CVE-2024-${10000 + i}`, url: `https://example.org/${i}`, feed: 'nvd', provider: null, name, tags: [String(i % 3)], file: `/raw/page-${i % 4}.json` });
    }
    // The writer replaces `file` by a short id on the row it is given: give it copies.
    for (const row of rows) writer.emit('reference', { ...row });
    writer.close();
    const written = (await lines('reference', 'lane0')) as ReferenceRow[];
    expect(written).toHaveLength(rows.length);
    const files = (await lines('file', 'lane0')) as { id: string; path: string }[];
    const pathOf = new Map(files.map((f) => [f.id, f.path]));
    expect(files.map((f) => f.id)).toEqual(['lane0:000000000', 'lane0:000000001', 'lane0:000000002', 'lane0:000000003']);
    written.forEach((row, i) => {
      expect({ ...row, file: pathOf.get(row.file) }, `row ${i}`).toEqual(rows[i]);
    });
  });

  it('makes a file only for the tables that had rows', async () => {
    const writer = new NdjsonStageWriter(dir, 'lane1');
    writer.emit('file', { id: 'x', path: '/raw/x.json' });
    writer.close();
    expect(await readdir(join(dir, 'file'))).toEqual(['lane1.ndjson']);
    expect(await readdir(join(dir, 'reference'))).toEqual([]);
    expect(await lines('file', 'lane1')).toEqual([{ id: 'x', path: '/raw/x.json' }]);
  });
});

describe('stageLine', () => {
  it('writes a lone surrogate as U+FFFD, which DuckDB reads (its escape failed the whole build), and leaves every other text as it is', async () => {
    const { stageLine } = await import('../../cli/stage/writer.ts');
    expect(stageLine({ a: 'x\ud800y', b: '\udc00', c: 'pair \u{1f600}' })).toBe('{"a":"x\ufffdy","b":"\ufffd","c":"pair \u{1f600}"}');
    // A text holding the six characters \ud800 themselves is no surrogate.
    expect(stageLine({ a: 'backslash \\ud800' })).toBe(JSON.stringify({ a: 'backslash \\ud800' }));
    // What DuckDB's JSON reader makes of the line: the text with U+FFFD.
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const file = join(dir, 'line.ndjson');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(file, `${stageLine({ a: 'x\ud800y' })}\n`);
    const db = await DuckDBInstance.create(':memory:');
    const connection = await db.connect();
    const rows = (await connection.runAndReadAll(`SELECT a FROM read_json('${file}', format = 'newline_delimited', columns = {a: 'VARCHAR'})`)).getRows();
    expect(rows).toEqual([['x\ufffdy']]);
    connection.closeSync();
    db.closeSync();
  });
});
