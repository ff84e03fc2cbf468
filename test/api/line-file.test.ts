/**
 * The line files of the serving folder (api/snapshot/line-file.ts): a line is its bytes without
 * the newline, read from disk or from the whole file held in memory alike; a file whose size
 * is not that of its lines is refused, never read at wrong offsets.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LineFile } from '../../api/snapshot/line-file.ts';

const lines = ['{"a":1}', '', '{"é":"漢 🦆"}', '{"b":[2,3]}'];
const lengths = Uint32Array.from(lines.map((l) => Buffer.byteLength(l)));

async function written(text: string): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'vulnintel-lines-')), 'lines.ndjson');
  await writeFile(path, text);
  return path;
}

describe('LineFile', () => {
  it('gives the same bytes from disk and held in memory: lines, runs of lines, copies in place', async () => {
    const path = await written(lines.map((l) => `${l}\n`).join(''));
    for (const file of [new LineFile(path, lengths), new LineFile(path, lengths, true)]) {
      expect(lines.map((_, i) => file.bytes(i).toString('utf8'))).toEqual(lines);
      expect(file.lines([2, 3, 0]).toString('utf8')).toBe(`${lines[2]}\n${lines[3]}\n${lines[0]}\n`);
      const out = Buffer.alloc(lengths[2]! + 2, 0x2e);
      file.copyLine(2, out, 1);
      expect(out.toString('utf8')).toBe(`.${lines[2]}.`);
      expect(() => file.bytes(4)).toThrow(/no line 4/);
      file.close();
      expect(() => file.bytes(0)).toThrow(/closed/);
    }
  });

  it('refuses a file whose size is not that of its lines, held or read from disk', async () => {
    const path = await written(`${lines.map((l) => `${l}\n`).join('')}extra`);
    expect(() => new LineFile(path, lengths, true)).toThrow(/lines make/);
    expect(() => new LineFile(path, lengths)).toThrow(/lines make/);
    // Cut short (a copy still running): opened before, every line past the cut failed when asked.
    const short = await written(lines.map((l) => `${l}\n`).join('').slice(0, 9));
    for (const held of [false, true]) expect(() => new LineFile(short, lengths, held)).toThrow(`${short}: 9 bytes, its 4 lines make`);
  });
});
