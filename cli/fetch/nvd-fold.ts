/**
 * Folds NVD's incremental pages (`nvd/delta/`) into the base once a published snapshot was
 * built from them, so `poll` every two hours does not grow the raw folder without bound.
 *
 * The base gains `nvd/full/folded-NN.json.gz`: 32 NVD-page-shaped files, one bucket per CVE
 * number modulo 32, holding the newest version of each CVE any folded delta carried (one
 * record per CVE at most, so the folded set is bounded by the number of CVEs). The parser
 * reads them like any page; the version with the latest `lastModified` still wins.
 *
 * Order makes a crash harmless: each touched bucket is replaced atomically (written beside,
 * renamed over), and only then are the folded delta files deleted. A crash in between leaves
 * a delta both folded and in place: the same record twice, which the build reduces to one,
 * and the next fold absorbs again. Only the delta files the caller lists (those present when
 * the published build started) are touched; a delta fetched later waits for the next build.
 * A new full pull replaces `full/` whole, folded buckets included (nvd.ts swapInFull).
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { isDataName } from '../../lib/raw-layout.ts';
import { toUtcTimestamp } from '../parse/common.ts';
import { writeFileAtomic } from './atomic.ts';
import { FetchError } from './errors.ts';

export const FOLD_BUCKETS = 32;
const DELTA_DIR = 'delta';
const FULL_DIR = 'full';

interface NvdItem {
  cve: { id: string; lastModified: string };
}

export function bucketFileName(bucket: number): string {
  return `folded-${String(bucket).padStart(2, '0')}.json.gz`;
}

function bucketOf(cveId: string): number {
  const seq = Number(/^CVE-\d{4}-(\d+)$/.exec(cveId)?.[1] ?? NaN);
  return Number.isFinite(seq) ? seq % FOLD_BUCKETS : 0;
}

/** The delta page files now in `nvd/delta/`, oldest first (names start with the window end). */
export async function listNvdDeltas(nvdDir: string): Promise<string[]> {
  const names = await readdir(join(nvdDir, DELTA_DIR)).catch(() => [] as string[]);
  return names.filter((n) => isDataName(n) && n.endsWith('.json.gz')).sort();
}

function readPage(buf: Buffer, file: string): NvdItem[] {
  let value: unknown;
  try {
    value = JSON.parse(gunzipSync(buf).toString('utf8'));
  } catch (err) {
    throw new FetchError(`fold NVD deltas: ${file} is not a readable gzip NVD page (${(err as Error).message})`);
  }
  const items = (value as { vulnerabilities?: unknown })?.vulnerabilities;
  if (!Array.isArray(items)) throw new FetchError(`fold NVD deltas: ${file} has no vulnerabilities array`);
  return items.filter((x): x is NvdItem => typeof (x as NvdItem)?.cve?.id === 'string');
}

/**
 * `lastModified` as the build reads it: NVD writes it without a zone, which is UTC
 * (toUtcTimestamp). Date.parse reads a zoneless date-time as local time: on a host in a zone
 * with summer time, an NVD time inside the hour clocks skip moved an hour later and outranked
 * a newer version.
 */
function modifiedAt(item: NvdItem): number {
  return Date.parse(toUtcTimestamp(item.cve.lastModified) ?? '');
}

/** Newer `lastModified` wins; on a tie the later one (a later delta) does. */
function newer(candidate: NvdItem, current: NvdItem | undefined): boolean {
  if (!current) return true;
  return modifiedAt(candidate) >= modifiedAt(current);
}

export interface FoldResult {
  deltas: number;
  records: number;
  buckets: number;
}

/**
 * Folds the listed delta files into the buckets, then deletes them. `afterWrite` runs between
 * the two steps (tests use it to simulate a crash there).
 */
export async function foldNvdDeltas(nvdDir: string, deltaFiles: readonly string[], afterWrite?: () => void | Promise<void>): Promise<FoldResult> {
  if (deltaFiles.length === 0) return { deltas: 0, records: 0, buckets: 0 };
  const byBucket = new Map<number, Map<string, NvdItem>>();
  let records = 0;
  for (const name of deltaFiles) {
    const file = join(nvdDir, DELTA_DIR, name);
    for (const item of readPage(await readFile(file), file)) {
      const b = bucketOf(item.cve.id);
      let m = byBucket.get(b);
      if (!m) byBucket.set(b, (m = new Map()));
      if (newer(item, m.get(item.cve.id))) m.set(item.cve.id, item);
      records++;
    }
  }
  for (const [bucket, changes] of byBucket) {
    const file = join(nvdDir, FULL_DIR, bucketFileName(bucket));
    const merged = new Map<string, NvdItem>();
    const existing = await readFile(file).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    if (existing) for (const item of readPage(existing, file)) merged.set(item.cve.id, item);
    for (const [id, item] of changes) if (newer(item, merged.get(id))) merged.set(id, item);
    const vulnerabilities = [...merged.values()].sort((a, b) => (a.cve.id < b.cve.id ? -1 : a.cve.id > b.cve.id ? 1 : 0));
    const page = { resultsPerPage: vulnerabilities.length, startIndex: 0, totalResults: vulnerabilities.length, format: 'NVD_CVE', version: '2.0', vulnerabilities };
    await writeFileAtomic(file, gzipSync(JSON.stringify(page)));
  }
  await afterWrite?.();
  for (const name of deltaFiles) await rm(join(nvdDir, DELTA_DIR, name), { force: true });
  return { deltas: deltaFiles.length, records, buckets: byBucket.size };
}
