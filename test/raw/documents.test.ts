/** The one reader of raw containers: trees, gzip, zip (nested, >65,535 members), failures. */
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { readDocuments } from '../../cli/raw/documents.ts';
import { RawFormatError } from '../../lib/errors.ts';

const enc = (s: string) => new TextEncoder().encode(s);

async function collect(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const d of readDocuments(dir, { endings: ['.json'] })) out.set(d.path.slice(dir.length + 1), d.text);
  return out;
}

describe('readDocuments', () => {
  it('reads plain, gzipped and zipped documents (zips inside zips too), skipping _ and . names', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'docs-'));
    await mkdir(join(dir, 'a', '_state'), { recursive: true });
    await writeFile(join(dir, 'a', 'one.json'), '{"n":1}');
    await writeFile(join(dir, 'a', '_state', 'cursor.json'), '{"skip":true}');
    await writeFile(join(dir, 'two.json.gz'), gzipSync('{"n":2}'));
    await writeFile(join(dir, 'notes.txt'), 'ignored');
    const inner = zipSync({ 'x/four.json': enc('{"n":4}') });
    await writeFile(join(dir, 'bundle.zip'), zipSync({ 'cves/three.json': enc('{"n":3}'), 'cves/.hidden.json': enc('{}'), 'inner.zip': inner }));
    const docs = await collect(dir);
    expect([...docs.keys()].sort()).toEqual(['a/one.json', 'bundle.zip!cves/three.json', 'bundle.zip!inner.zip!x/four.json', 'two.json.gz']);
    expect(docs.get('bundle.zip!inner.zip!x/four.json')).toBe('{"n":4}');
    expect(docs.get('two.json.gz')).toBe('{"n":2}');
  });

  it('reads every member of an archive past 65,535 members, whose count field wrapped', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'docs-'));
    const files: Record<string, Uint8Array> = {};
    for (let i = 0; i < 65_600; i++) files[`m/${i}.json`] = enc(`${i}`);
    await writeFile(join(dir, 'big.zip'), zipSync(files, { level: 0 }));
    let n = 0;
    let last = '';
    for await (const d of readDocuments(dir, { endings: ['.json'] })) {
      n++;
      last = d.text;
    }
    expect(n).toBe(65_600);
    expect(last).toBe('65599');
  });

  it('names the file when a zip is truncated', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'docs-'));
    const full = zipSync({ 'a.json': enc('{"a":1}'.repeat(100)) });
    await writeFile(join(dir, 'cut.zip'), full.subarray(0, full.length - 30));
    const error = await collect(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RawFormatError);
    expect((error as Error).message).toContain('cut.zip');
  });

  it('names the file when a gzip is truncated', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'docs-'));
    const gz = gzipSync('{"a":1}'.repeat(1000));
    await writeFile(join(dir, 'cut.json.gz'), gz.subarray(0, gz.length - 10));
    const error = await collect(dir).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/cut\.json\.gz: not a complete gzip file/);
  });

  it('a missing folder is no documents, not an error', async () => {
    expect((await collect(join(tmpdir(), 'does-not-exist-vulnintel'))).size).toBe(0);
  });
});
