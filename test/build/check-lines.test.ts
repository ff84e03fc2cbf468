/**
 * The check every serving line file passes after DuckDB writes it (cli/build/line-files.ts
 * checkLines): the file must be exactly the expected lines, in order, each with its newline;
 * anything else (a line of another length, lines swapped, a missing or extra line, a cut last
 * line) is an error naming the file and the line, never a file a replica would serve.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkLines } from '../../cli/build/line-files.ts';

const lines = ['{"a":1}', '', '{"é":"漢 🦆"}', '{"b":[2,3,4,5]}'];
const lengths = Uint32Array.from(lines.map((l) => Buffer.byteLength(l)));

async function file(text: string): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'vulnintel-check-lines-')), 'lines.ndjson');
  await writeFile(path, text);
  return path;
}

describe('checkLines', () => {
  it('accepts the lines in order, each with its newline, and an empty file for no lines', async () => {
    const whole = await file(lines.map((l) => `${l}\n`).join(''));
    expect(() => checkLines(whole, lengths)).not.toThrow();
    const empty = await file('');
    expect(() => checkLines(empty, new Uint32Array(0))).not.toThrow();
  });

  it('refuses swapped, missing, extra and cut lines, naming the line', async () => {
    const swapped = await file([lines[0], lines[2], lines[1], lines[3]].map((l) => `${l}\n`).join(''));
    expect(() => checkLines(swapped, lengths)).toThrow(/line 2 has \d+ bytes, expected 0/);
    const missing = await file(lines.slice(0, 3).map((l) => `${l}\n`).join(''));
    expect(() => checkLines(missing, lengths)).toThrow(/3 whole lines, expected 4 lines/);
    const extra = await file([...lines, 'x'].map((l) => `${l}\n`).join(''));
    expect(() => checkLines(extra, lengths)).toThrow(/line 5 .*beyond the 4 lines/);
    const cut = await file(`${lines.map((l) => `${l}\n`).join('')}{"c"`);
    expect(() => checkLines(cut, lengths)).toThrow(/4 whole lines and 4 bytes after them, expected 4 lines/);
  });
});
