/**
 * Reads the documents of one raw source folder, whatever container the source publishes them
 * in: plain files in any tree, gzip files, zip archives (and zips inside zips). Every reader of
 * raw data goes through here, so containers are handled once.
 */
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import yauzl from 'yauzl';
import { RawFormatError } from '../../lib/errors.ts';
import { isDataName } from '../../lib/raw-layout.ts';

export interface RawDocument {
  /** The file path, or `archive.zip!entry/path.json` for a zip member. */
  path: string;
  text: string;
}

export interface ReadOptions {
  /** Lower-case endings of the documents wanted, e.g. `['.json']`. `.gz` variants are read too. */
  endings: string[];
}

/** Every data file below `dir` (sorted, `_`/`.` names skipped). Missing dir → no files. */
export async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(d: string): Promise<void> {
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (!isDataName(e.name)) continue;
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile()) out.push(p);
    }
  }
  const s = await stat(dir).catch(() => null);
  if (s?.isFile()) return [dir];
  await walk(dir);
  return out;
}

function wanted(name: string, endings: string[]): 'plain' | 'gzip' | 'zip' | null {
  const lower = name.toLowerCase();
  if (lower.endsWith('.zip')) return 'zip';
  for (const end of endings) {
    if (lower.endsWith(end)) return 'plain';
    if (lower.endsWith(`${end}.gz`)) return 'gzip';
  }
  return null;
}

export function gunzipOrFail(buf: Buffer, path: string): Buffer {
  try {
    return gunzipSync(buf);
  } catch (err) {
    throw new RawFormatError(path, undefined, `not a complete gzip file (${(err as Error).message})`);
  }
}

export async function* readDocuments(dir: string, opts: ReadOptions): AsyncGenerator<RawDocument> {
  for (const file of await listFiles(dir)) {
    const kind = wanted(file, opts.endings);
    if (kind === 'plain') yield { path: file, text: await readFile(file, 'utf8') };
    else if (kind === 'gzip') yield { path: file, text: gunzipOrFail(await readFile(file), file).toString('utf8') };
    else if (kind === 'zip') yield* readZip(file, opts, () => openZipFile(file), file);
  }
}

function openZipFile(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, autoClose: true }, (err, zip) => (err ? reject(err) : resolve(zip))),
  );
}

function openZipBuffer(buf: Buffer): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.fromBuffer(buf, { lazyEntries: true }, (err, zip) => (err ? reject(err) : resolve(zip))),
  );
}

function readEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => {
      if (err) return reject(err);
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', reject);
      stream.on('end', () => resolve(Buffer.concat(chunks)));
    });
  });
}

/** Streams the members of a zip one at a time: memory stays at one document. */
async function* readZip(
  label: string,
  opts: ReadOptions,
  open: () => Promise<yauzl.ZipFile>,
  outerFile: string,
): AsyncGenerator<RawDocument> {
  let zip: yauzl.ZipFile;
  try {
    zip = await open();
  } catch (err) {
    throw new RawFormatError(label, undefined, `not a readable zip archive (${(err as Error).message})`);
  }
  const queue: Array<yauzl.Entry | null | Error> = [];
  let wake: (() => void) | null = null;
  const push = (v: yauzl.Entry | null | Error) => {
    queue.push(v);
    wake?.();
    wake = null;
  };
  zip.on('entry', (e: yauzl.Entry) => push(e));
  zip.on('end', () => push(null));
  zip.on('error', (e: Error) => push(e));
  zip.readEntry();
  try {
    for (;;) {
      if (queue.length === 0) await new Promise<void>((r) => (wake = r));
      const item = queue.shift()!;
      if (item === null) return;
      if (item instanceof Error) throw new RawFormatError(label, undefined, `broken zip archive (${item.message})`);
      const name = item.fileName;
      const base = name.split('/').pop() ?? name;
      const kind = name.endsWith('/') || !isDataName(base) ? null : wanted(name, opts.endings);
      if (kind) {
        const where = `${label}!${name}`;
        let buf: Buffer;
        try {
          buf = await readEntry(zip, item);
        } catch (err) {
          throw new RawFormatError(where, undefined, `cannot be extracted (${(err as Error).message})`);
        }
        if (kind === 'plain') yield { path: where, text: buf.toString('utf8') };
        else if (kind === 'gzip') yield { path: where, text: gunzipOrFail(buf, where).toString('utf8') };
        else yield* readZip(where, opts, () => openZipBuffer(buf), outerFile);
      }
      zip.readEntry();
    }
  } finally {
    zip.close();
  }
}

/** A byte stream of one raw file (for the large CSV/JSONL sources), gunzipped when `.gz`. */
export function openRawStream(file: string): NodeJS.ReadableStream {
  return createReadStream(file);
}

/** Parses JSON or throws a RawFormatError naming the document. */
export function parseJsonDocument(doc: RawDocument): unknown {
  try {
    return JSON.parse(doc.text);
  } catch (err) {
    throw new RawFormatError(doc.path, undefined, `malformed JSON (${(err as Error).message})`);
  }
}
