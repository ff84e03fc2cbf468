/** The one reader of raw containers: trees, gzip, zip (nested, >65,535 members), failures. */
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
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

  it('refuses a member whose bytes do not match its CRC-32, naming it (a damaged stored member was published as it was)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'docs-'));
    const zip = Buffer.from(zipSync({ 'CVE-2024-3400.json': enc('{"product":"PAN-OS"}') }, { level: 0 }));
    const at = zip.indexOf('PAN-OS');
    zip[at] = 'X'.charCodeAt(0);
    await writeFile(join(dir, 'damaged.zip'), zip);
    const error = await collect(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RawFormatError);
    expect((error as Error).message).toMatch(/damaged\.zip.*CVE-2024-3400\.json: CRC-32 mismatch/);
  });

  it('refuses a member that inflates past its declared size before filling memory (a zip bomb)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'docs-'));
    // 200 MB of zeros, the directory claiming 100 bytes (the local header's copy too).
    const zip = Buffer.from(zipSync({ 'bomb.json': new Uint8Array(200_000_000) }, { level: 9 }));
    for (const [signature, at] of [[0x04034b50, 22], [0x02014b50, 24]] as const) {
      for (let i = 0; i + 4 <= zip.length; i++) if (zip.readUInt32LE(i) === signature) zip.writeUInt32LE(100, i + at);
    }
    await writeFile(join(dir, 'bomb.zip'), zip);
    const error = await collect(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RawFormatError);
    expect((error as Error).message).toMatch(/bomb\.json: inflates past its declared 100 bytes/);
  });

  it('names the file when a gzip is truncated', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'docs-'));
    const gz = gzipSync('{"a":1}'.repeat(1000));
    await writeFile(join(dir, 'cut.json.gz'), gz.subarray(0, gz.length - 10));
    const error = await collect(dir).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/cut\.json\.gz: not a complete gzip file/);
  });

  it('follows symbolic links to files and folders; one to nothing, a name or text not UTF-8, are errors naming them (each was left out, or read with U+FFFD, without a word)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'docs-'));
    const outside = await mkdtemp(join(tmpdir(), 'docs-outside-'));
    await writeFile(join(outside, 'page.json'), '{"n":1}');
    await mkdir(join(outside, 'more'));
    await writeFile(join(outside, 'more', 'two.json'), '{"n":2}');
    await symlink(join(outside, 'page.json'), join(dir, 'linked.json'));
    await symlink(join(outside, 'more'), join(dir, 'linked-folder'));
    // A loop: walked once.
    await symlink(dir, join(dir, 'loop'));
    expect([...(await collect(dir)).keys()].sort()).toEqual(['linked-folder/two.json', 'linked.json']);

    await symlink(join(outside, 'gone.json'), join(dir, 'dangling.json'));
    await expect(collect(dir)).rejects.toThrow(/dangling\.json: a symbolic link to nothing/);
    await rm(join(dir, 'dangling.json'));

    await writeFile(Buffer.concat([Buffer.from(`${dir}/page`), Buffer.from([0xff, 0xfe]), Buffer.from('.json')]), '{}');
    await expect(collect(dir)).rejects.toThrow(/its name is not valid UTF-8/);
    await rm(dir, { recursive: true, force: true });

    const text = await mkdtemp(join(tmpdir(), 'docs-'));
    await writeFile(join(text, 'bad.json'), Buffer.concat([Buffer.from('{"product":"'), Buffer.from([0xff, 0xfe]), Buffer.from('N-OS"}')]));
    await expect(collect(text)).rejects.toThrow(/bad\.json: not valid UTF-8 text/);
    await writeFile(join(text, 'bad.json'), '{"product":"PAN-OS"}');
    await writeFile(join(text, 'in.zip'), zipSync({ 'x.json': Uint8Array.from([0x22, 0xc3, 0x28, 0x22]) }));
    await expect(collect(text)).rejects.toThrow(/in\.zip!x\.json: not valid UTF-8 text/);
  });

  it('a missing folder is no documents, not an error', async () => {
    expect((await collect(join(tmpdir(), 'does-not-exist-vulnintel'))).size).toBe(0);
  });
});
