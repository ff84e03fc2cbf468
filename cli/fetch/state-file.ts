/**
 * A source's own state file (`<source>/_state.json`: watermarks, cursors), read. It is written
 * atomically, so one that is not a JSON object was damaged outside a run (by hand, by a disk):
 * the source then starts over as on a first run (a full pull, which loses nothing) and says so,
 * naming the file. NVD's started its full pull without a word; GHSA's failed the source at
 * every run with a bare "Unexpected token …" naming no file.
 */
import { readFile } from 'node:fs/promises';
import { FetchError, describeError } from './errors.ts';

/** The file's JSON object; null when there is none or it is damaged (then `log` says so). */
export async function readStateFile(file: string, log: (line: string) => void): Promise<Record<string, unknown> | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new FetchError(`${file}: cannot be read (${describeError(err)})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    value = err;
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Error)) return value as Record<string, unknown>;
  log(`  ${file}: damaged (${value instanceof Error ? value.message : 'not a JSON object'}); starting this source over, as on a first run`);
  return null;
}
