/**
 * Where the serving files of a snapshot live and what they are named (DESIGN §8.1): the layout
 * the build writes (cli/build/serving.ts) and a replica and `vulnintel scan` read, kept apart
 * from the code that writes them so a reader need not load DuckDB to find them (as
 * lib/snapshot-layout.ts does for the Parquet).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Bumped whenever the serving layout changes: older serving folders are then derived anew. */
export const SERVING_FORMAT = 6;

export const SERVING_DIR = 'serving';
export const SERVING_DB = 'serving.duckdb';
export const SERVING_RECORDS = 'records.ndjson';
export const SERVING_MANIFEST = 'serving.json';
export const SERVING_COLUMNS = 'columns.bin';
export const SERVING_IDS = 'ids.txt';
/** Each record's SHA-1 (20 bytes, by doc): its ETag, so a replica does not hash a record per request. */
export const SERVING_RECORD_DIGESTS = 'record-sha1.bin';
/** The stored answers: `<kind>.ndjson` by doc for each PER_CVE_ANSWERS kind, the advisories by key. */
export const PER_CVE_ANSWERS = ['enrichment', 'references'] as const;
export type PerCveAnswer = (typeof PER_CVE_ANSWERS)[number];
/**
 * The related answers in two parts, by doc (cli/build/answers.ts): each CVE's template and
 * brief ('' for a CVE no list names); the replica splices them (api/snapshot/related-splice.ts).
 */
export const SERVING_RELATED_TEMPLATES = 'related-templates.ndjson';
export const SERVING_RELATED_BRIEFS = 'related-briefs.ndjson';
export const SERVING_ADVISORIES = 'vendor-advisories.ndjson';
export const SERVING_ADVISORY_KEYS = 'vendor-advisory-keys.ndjson';
/** The package index rows (lib/packages/index.ts, packageIndexSql), one JSON per line; absent when affected_packages is unreadable. */
export const SERVING_PACKAGES = 'packages.ndjson';
/**
 * The search postings as flat files (DESIGN §8.1): `terms.txt` every term once, newline after
 * each, in byte order; `terms.bin` flat arrays by term position (`start`: where its docs begin
 * in postings.bin, one more entry than terms; `all_count`, `active_count`); `postings.bin` the
 * docs (int32, little-endian) of each term in term order, ascending within a term.
 */
export const SERVING_TERMS = 'terms.txt';
export const SERVING_TERM_COLUMNS = 'terms.bin';
export const SERVING_POSTINGS = 'postings.bin';
/**
 * Line lengths of the answer files: `<kind>_bytes` by doc, `related_template_bytes` and
 * `related_brief_bytes` by doc, `advisory_bytes` by advisory.
 */
export const SERVING_ANSWER_LENGTHS = 'answers.bin';

export interface ServingManifest {
  format: number;
  /** Snapshot tables whose Parquet could not be read: present in serving.duckdb, empty. */
  unreadable_tables: string[];
  cves: number;
  record_bytes: number;
  /**
   * Size of packages.ndjson. Absent from serving folders written before it was recorded (and
   * when affected_packages could not be read): the file is then taken as it is.
   */
  package_bytes?: number;
  seconds: number;
}

export function servingDir(snapshotDir: string): string {
  return join(snapshotDir, SERVING_DIR);
}

/** The serving manifest of a snapshot, or null when its serving files are absent or outdated. */
export async function readServingManifest(dir: string): Promise<ServingManifest | null> {
  try {
    const manifest = JSON.parse(await readFile(join(dir, SERVING_MANIFEST), 'utf8')) as ServingManifest;
    return manifest.format === SERVING_FORMAT ? manifest : null;
  } catch {
    return null;
  }
}

/**
 * The package index rows of a serving folder (SERVING_PACKAGES), or null when it has none, or
 * one of another size than its manifest records: cut short (a copy still running, a full disk),
 * a file was parsed as it was, and either failed (every package question a 500, `scan` a crash)
 * or, cut at a line's end, left packages out ("not affected"). Null sends each caller to the
 * same rows by its query instead.
 */
export async function readServingPackages(dir: string): Promise<string | null> {
  let text: string;
  try {
    text = await readFile(join(dir, SERVING_PACKAGES), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const expected = (await readServingManifest(dir))?.package_bytes;
  return expected === undefined || Buffer.byteLength(text) === expected ? text : null;
}
