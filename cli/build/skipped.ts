/**
 * Files and folders under the raw folder that no parser reads. The parsers skip them by
 * design (a checkout holds many unrelated files), but silently skipping data put in the wrong
 * place reads as "no records": the build lists each one, with the names that would have been
 * read, in its output and in the manifest.
 */
import { readdir } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { RAW_SOURCES, isDataName } from '../../lib/raw-layout.ts';
import { listFiles } from '../raw/documents.ts';
import { PARSERS } from '../parse/index.ts';

export interface SkippedEntry {
  /** Relative to the raw folder, `/`-separated; a folder ends with `/`. */
  path: string;
  reason: string;
  /** Where and under which names a parser would have read it. */
  expected: string[];
}

export interface SkippedReport {
  total: number;
  /** The first MAX_LISTED entries. */
  entries: SkippedEntry[];
}

const MAX_LISTED = 200;

const rel = (rawDir: string, path: string) => relative(rawDir, path).split(sep).join('/');

/** Every source folder with the names its parser reads, e.g. `exploitdb/files_exploits.csv`. */
function everySourceName(): string[] {
  return PARSERS.flatMap((p) => p.reads.names.map((n) => `${RAW_SOURCES[p.key]}/${n.startsWith('*') ? `**/${n}` : n}`));
}

/** For a file outside any source folder: the source folders whose parser reads it by its exact name. */
function namedHomes(file: string): string[] {
  const name = basename(file).toLowerCase();
  return PARSERS.filter((p) => p.reads.names.some((n) => !n.includes('*') && n.toLowerCase() === name)).map((p) => `${RAW_SOURCES[p.key]}/${basename(file)}`);
}

export async function findSkipped(rawDir: string): Promise<SkippedReport> {
  const entries: SkippedEntry[] = [];
  const folders = new Set<string>(Object.values(RAW_SOURCES));
  let top: import('node:fs').Dirent[];
  try {
    top = await readdir(rawDir, { withFileTypes: true });
  } catch {
    return { total: 0, entries: [] };
  }
  for (const e of top.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!isDataName(e.name) || folders.has(e.name)) continue;
    const path = join(rawDir, e.name);
    if (e.isDirectory()) {
      const files = await listFiles(path);
      const homes = [...new Set(files.flatMap(namedHomes))];
      entries.push({
        path: `${e.name}/`,
        reason: `not a source folder: none of its ${files.length} file(s) is read`,
        expected: homes.length ? homes : everySourceName(),
      });
    } else {
      const homes = namedHomes(path);
      entries.push({ path: e.name, reason: 'a file outside every source folder is not read', expected: homes.length ? homes : everySourceName() });
    }
  }
  for (const parser of PARSERS) {
    const dir = join(rawDir, RAW_SOURCES[parser.key]);
    for (const file of await listFiles(dir)) {
      if (parser.reads.accepts(file)) continue;
      entries.push({
        path: rel(rawDir, file),
        reason: `not a name the ${parser.key} parser reads`,
        expected: parser.reads.names.map((n) => `${RAW_SOURCES[parser.key]}/${n.startsWith('*') ? `**/${n}` : n}`),
      });
    }
  }
  return { total: entries.length, entries: entries.slice(0, MAX_LISTED) };
}
