/**
 * Reads the documents of one raw source folder, whatever container the source publishes them
 * in: plain files in any tree, gzip files, zip archives (and zips inside zips). Every reader of
 * raw data goes through here, so containers are handled once.
 */
import { isUtf8 } from 'node:buffer';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { withoutBom } from '../../lib/bom.ts';
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

/**
 * Every data file below `dir` (sorted, `_`/`.` names skipped). Missing dir → no files. A symbolic
 * link is followed to what it names (a file, or a folder walked once: a loop is walked no
 * further); one that names nothing, or a name that is not UTF-8 (it could not be opened by it),
 * is an error naming it: a raw file is never left out without a word.
 */
export async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walked = new Set<string>();
  async function walk(d: string): Promise<void> {
    const real = await realpath(d).catch(() => d);
    if (walked.has(real)) return;
    walked.add(real);
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true, encoding: 'buffer' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    const named = entries.map((e) => {
      if (!isUtf8(e.name)) throw new RawFormatError(join(d, e.name.toString('latin1')), undefined, 'its name is not valid UTF-8: rename it');
      return { entry: e, name: e.name.toString('utf8') };
    });
    named.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const { entry, name } of named) {
      if (!isDataName(name)) continue;
      const p = join(d, name);
      let kind: 'file' | 'folder' | null = entry.isDirectory() ? 'folder' : entry.isFile() ? 'file' : null;
      if (entry.isSymbolicLink()) {
        const target = await stat(p).catch(() => null);
        if (target === null) throw new RawFormatError(p, undefined, 'a symbolic link to nothing (or to itself)');
        kind = target.isDirectory() ? 'folder' : target.isFile() ? 'file' : null;
      }
      if (kind === 'folder') await walk(p);
      else if (kind === 'file') out.push(p);
    }
  }
  const s = await stat(dir).catch(() => null);
  if (s?.isFile()) return [dir];
  await walk(dir);
  return out;
}

/**
 * A raw file's bytes as text, refused unless they are UTF-8 (never read with U+FFFD in place),
 * a leading byte order mark left out.
 */
export function utf8Text(bytes: Buffer, path: string): string {
  if (!isUtf8(bytes)) throw new RawFormatError(path, undefined, 'not valid UTF-8 text');
  return withoutBom(bytes.toString('utf8'));
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
    if (kind === 'plain') yield { path: file, text: utf8Text(await readFile(file), file) };
    else if (kind === 'gzip') yield { path: file, text: utf8Text(gunzipOrFail(await readFile(file), file), file) };
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
      if (kind === 'plain') yield { path: where, text: utf8Text(data, where) };
      else if (kind === 'gzip') yield { path: where, text: utf8Text(gunzipOrFail(data, where), where) };
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
