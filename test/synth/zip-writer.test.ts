import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { readDocuments } from '../../cli/raw/documents.ts';
import { StreamingZip, dosDateTime } from '../../cli/synth/zip-writer.ts';

const dir = await mkdtemp(join(tmpdir(), 'synth-zip-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

function buildZip(entries: number, content: (k: number) => string): Buffer {
  const parts: Buffer[] = [];
  const zip = new StreamingZip({ write: (c) => (parts.push(Buffer.from(c)), true) }, Date.UTC(2026, 9, 1, 6, 0, 0));
  for (let k = 0; k < entries; k++) {
    const raw = Buffer.from(content(k));
    zip.add(`docs/${k}.json`, raw.length, crc32(raw), deflateRawSync(raw));
    if (k % 2 === 0) zip.flush();
  }
  zip.finish();
  return Buffer.concat(parts);
}

describe('StreamingZip', () => {
  it('writes entries the raw reader gets back, in order and intact', async () => {
    const path = join(dir, 'small.zip');
    await writeFile(path, buildZip(3, (k) => JSON.stringify({ k, text: 'é'.repeat(k) })));
    const docs = [];
    for await (const d of readDocuments(path, { endings: ['.json'] })) docs.push(d);
    expect(docs.map((d) => d.path)).toEqual([`${path}!docs/0.json`, `${path}!docs/1.json`, `${path}!docs/2.json`]);
    expect(JSON.parse(docs[2]!.text)).toEqual({ k: 2, text: 'éé' });
  });

  it('switches to ZIP64 end records past 65,535 entries so readers see all of them', async () => {
    const raw = Buffer.from('{}');
    const deflated = deflateRawSync(raw);
    const parts: Buffer[] = [];
    const zip = new StreamingZip({ write: (c) => (parts.push(Buffer.from(c)), true) }, Date.UTC(2026, 0, 1));
    for (let k = 0; k < 70_000; k++) zip.add(`${k}.json`, raw.length, crc32(raw), deflated);
    zip.finish();
    const path = join(dir, 'many.zip');
    await writeFile(path, Buffer.concat(parts));
    let count = 0;
    let last = '';
    for await (const d of readDocuments(path, { endings: ['.json'] })) {
      count++;
      last = d.path;
    }
    expect(count).toBe(70_000);
    expect(last.endsWith('!69999.json')).toBe(true);
  });

  it('stores the corpus date as UTC DOS time, whatever the machine zone', () => {
    const { date, time } = dosDateTime(Date.UTC(2026, 9, 1, 6, 0, 0));
    expect(date).toBe(((2026 - 1980) << 9) | (10 << 5) | 1);
    expect(time).toBe(6 << 11);
  });
});
