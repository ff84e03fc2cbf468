/**
 * A build must not publish a snapshot that lost most of a source because its raw folder was
 * emptied or cut short (an nvd/ folder moved away, a truncated EPSS file, a CSAF mirror
 * half-copied): the API would serve every CVE without that source until a good build, and
 * /pulse would announce each of them as changed to every subscriber, twice (the loss, then
 * the return). A source that held at least SHRINK_GUARD_MIN_RECORDS records in the published
 * snapshot and now stages fewer than SHRINK_GUARD_KEEP_FRACTION of them stops the build right
 * after staging, before any SQL, naming the source and both counts; `--allow-shrink` publishes
 * anyway (a source given up on purpose). Upstream sources only grow, or shrink by a few
 * records (a withdrawn advisory, NVD deltas folded into their pages): half is far outside that.
 * Small corpora (the sample, tests) are below the minimum and never stopped.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from '../../lib/errors.ts';
import { formatCount } from '../../lib/log.ts';
import { RAW_SOURCES, type RawSourceKey } from '../../lib/raw-layout.ts';
import type { StageResult } from '../parse/source.ts';

export const SHRINK_GUARD_MIN_RECORDS = 1_000;
export const SHRINK_GUARD_KEEP_FRACTION = 0.5;

export interface SourceShrink {
  /** The raw folder name, as manifest.json keys its sources (`nvd`, `poc-in-github`, …). */
  source: string;
  before: number;
  now: number;
}

/** What the published snapshot's manifest.json says each source held; null when it cannot be read. */
export async function publishedSourceRecords(snapshotDir: string): Promise<Record<string, number> | null> {
  let manifest: unknown;
  try {
    manifest = JSON.parse(await readFile(join(snapshotDir, 'manifest.json'), 'utf8'));
  } catch {
    // No manifest to compare with (a snapshot of another tool, a damaged file): nothing to guard.
    return null;
  }
  const sources = (manifest as { sources?: unknown })?.sources;
  if (typeof sources !== 'object' || sources === null) return null;
  const records: Record<string, number> = {};
  for (const [folder, entry] of Object.entries(sources)) {
    const n = (entry as { records?: unknown } | null)?.records;
    if (typeof n === 'number' && Number.isFinite(n)) records[folder] = n;
  }
  return records;
}

/** The sources of `before` (by raw folder) that `staged` (by parser key) holds less than the guard allows. */
export function shrunkSources(before: Record<string, number>, staged: Record<string, StageResult>): SourceShrink[] {
  const now: Record<string, number> = {};
  for (const [key, result] of Object.entries(staged)) now[RAW_SOURCES[key as RawSourceKey] ?? key] = result.records;
  const shrunk: SourceShrink[] = [];
  for (const [source, count] of Object.entries(before)) {
    if (count < SHRINK_GUARD_MIN_RECORDS) continue;
    const staying = now[source] ?? 0;
    if (staying < count * SHRINK_GUARD_KEEP_FRACTION) shrunk.push({ source, before: count, now: staying });
  }
  return shrunk.sort((a, b) => a.source.localeCompare(b.source));
}

/** The error that stops a build whose sources shrank (see the header). */
export function shrinkError(shrunk: SourceShrink[], rawDir: string, publishedId: string): CliError {
  const lines = shrunk.map(
    (s) => `  ${s.source}: ${formatCount(s.now)} records in ${join(rawDir, s.source)}, the published snapshot ${publishedId} has ${formatCount(s.before)}`,
  );
  return new CliError(
    [
      `${shrunk.length === 1 ? 'a source' : `${shrunk.length} sources`} lost more than half of ${shrunk.length === 1 ? 'its' : 'their'} records since the published snapshot:`,
      ...lines,
      `its raw folder looks emptied or cut short (a failed or interrupted fetch, a moved folder?): nothing published.`,
      `Fetch again (vulnintel fetch --sources ${shrunk.map((s) => s.source).join(',')}), or publish anyway with --allow-shrink.`,
    ].join('\n'),
  );
}
