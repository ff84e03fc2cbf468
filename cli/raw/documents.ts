/**
 * Reads the documents of one raw source folder, whatever container the source publishes them
 * in: plain files in any tree, gzip files, zip archives (and zips inside zips). Every reader of
 * raw data goes through here, so containers are handled once.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { RawFormatError } from '../../lib/errors.ts';
import { isDataName } from '../../lib/raw-layout.ts';
import { bufferSource, fileSource, readZipMembers, type ByteSource } from './zip.ts';

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

/**
 * Which files of its folder a parser reads: `accepts` decides, `names` says it in words (build
 * output and manifest list every other file as skipped, with these names).
 */
export interface FileSelection {
  accepts(path: string): boolean;
  /** `*.json` for an ending, the file name itself for a named file (`files_exploits.csv`). */
  names: string[];
}

/** The selection of a readDocuments reader with these endings (plain, `.gz`, and `.zip` containers). */
export function documentSelection(endings: string[]): FileSelection {
  const shown = (e: string) => (e.startsWith('.') ? `*${e}` : e);
  return {
    accepts: (path) => wanted(path, endings) !== null,
    names: [...endings.flatMap((e) => [shown(e), `${shown(e)}.gz`]), '*.zip'],
  };
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
    else if (kind === 'zip') yield* readZip(file, opts, () => fileSource(file));
  }
}

/** Streams the members of a zip one at a time: memory stays at one document plus a read window. */
async function* readZip(
  label: string,
  opts: ReadOptions,
  openSource: () => Promise<ByteSource>,
): AsyncGenerator<RawDocument> {
  let src: ByteSource;
  try {
    src = await openSource();
  } catch (err) {
    throw new RawFormatError(label, undefined, `not a readable zip archive (${(err as Error).message})`);
  }
  const members = readZipMembers(src, (name) => {
    const base = name.split('/').pop() ?? name;
    return isDataName(base) && wanted(name, opts.endings) !== null;
  });
  try {
    for (;;) {
      let next;
      try {
        next = await members.next();
      } catch (err) {
        throw new RawFormatError(label, undefined, `broken zip archive (${(err as Error).message})`);
      }
      if (next.done) return;
      const { member, data } = next.value;
      const where = `${label}!${member.name}`;
      const kind = wanted(member.name, opts.endings);
      if (kind === 'plain') yield { path: where, text: data.toString('utf8') };
      else if (kind === 'gzip') yield { path: where, text: gunzipOrFail(data, where).toString('utf8') };
      else if (kind === 'zip') yield* readZip(where, opts, async () => bufferSource(data));
    }
  } finally {
    await src.close();
  }
}

/** Parses JSON or throws a RawFormatError naming the document. */
export function parseJsonDocument(doc: RawDocument): unknown {
  try {
    return JSON.parse(doc.text);
  } catch (err) {
    throw new RawFormatError(doc.path, undefined, `malformed JSON (${(err as Error).message})`);
  }
}
