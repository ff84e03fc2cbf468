/**
 * Per-source fetch status, written atomically to `<raw>/_status/<source>.json` beside the raw
 * data it describes. The build copies every record into the snapshot manifest (through
 * `readSourceStatuses`), so `/cves/summary` shows how fresh each feed really is: a source whose
 * last attempt failed keeps its `last_success`, `watermark` and counts from the last good run,
 * and `ok: false` with the error says it is stale.
 *
 * Keys are the raw folder names of lib/raw-layout.ts (`nvd`, `cvelist`, …, `poc-in-github`).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RAW_STATUS_DIR } from '../../lib/raw-layout.ts';
import { writeJsonAtomic } from './atomic.ts';

export interface SourceStatus {
  /** Raw folder name of the source. */
  source: string;
  /** Whether the last attempt succeeded. false = the raw data is from `last_success`. */
  ok: boolean;
  /** ISO time the last attempt started. */
  last_attempt: string | null;
  /** ISO time the last successful attempt finished. */
  last_success: string | null;
  /**
   * How far the raw data reaches, in the source's own terms: NVD's lastModified high-water
   * mark, the EPSS score date, the KEV catalog release, the newest cvelistV5 asset … (ISO).
   */
  watermark: string | null;
  /** Records fetched by the last successful attempt (for a 304, those of the file in place). */
  records: number | null;
  /** Bytes downloaded by the last successful attempt (0 when nothing had changed). */
  bytes: number | null;
  /** The last successful attempt found nothing new upstream (304 / no changes). */
  unchanged: boolean;
  /** The last attempt's error; null after a success. */
  error: string | null;
  /** Wall time of the last attempt. */
  duration_ms: number | null;
}

export function statusPath(rawDir: string, source: string): string {
  return join(rawDir, RAW_STATUS_DIR, `${source}.json`);
}

export function emptyStatus(source: string): SourceStatus {
  return {
    source,
    ok: false,
    last_attempt: null,
    last_success: null,
    watermark: null,
    records: null,
    bytes: null,
    unchanged: false,
    error: null,
    duration_ms: null,
  };
}

export async function readSourceStatus(rawDir: string, source: string): Promise<SourceStatus | null> {
  try {
    const value = JSON.parse(await readFile(statusPath(rawDir, source), 'utf8')) as Partial<SourceStatus>;
    return { ...emptyStatus(source), ...value, source };
  } catch {
    return null;
  }
}

/** Every status record under `<raw>/_status/`, keyed by source. Missing folder → `{}`. */
export async function readSourceStatuses(rawDir: string): Promise<Record<string, SourceStatus>> {
  let names: string[];
  try {
    names = await readdir(join(rawDir, RAW_STATUS_DIR));
  } catch {
    return {};
  }
  const out: Record<string, SourceStatus> = {};
  for (const name of names.sort()) {
    if (!name.endsWith('.json') || name.startsWith('.')) continue;
    const source = name.slice(0, -'.json'.length);
    const status = await readSourceStatus(rawDir, source);
    if (status) out[source] = status;
  }
  return out;
}

export async function writeSourceStatus(rawDir: string, status: SourceStatus): Promise<void> {
  await writeJsonAtomic(statusPath(rawDir, status.source), status);
}

export interface AttemptResult {
  startedAt: Date;
  finishedAt: Date;
  /** Present on success. */
  outcome?: { records: number | null; bytes: number; watermark: string | null; unchanged: boolean };
  /** Present on failure. */
  error?: string;
  /** A watermark the source reached even though the attempt failed (NVD windows completed). */
  partialWatermark?: string | null;
}

/** The new status after one attempt, carrying the last good values through a failure. */
export function nextStatus(previous: SourceStatus | null, source: string, attempt: AttemptResult): SourceStatus {
  const base = previous ?? emptyStatus(source);
  const common = {
    source,
    last_attempt: attempt.startedAt.toISOString(),
    duration_ms: attempt.finishedAt.getTime() - attempt.startedAt.getTime(),
  };
  if (attempt.outcome) {
    const o = attempt.outcome;
    return {
      ...base,
      ...common,
      ok: true,
      last_success: attempt.finishedAt.toISOString(),
      watermark: o.watermark ?? base.watermark,
      records: o.records ?? base.records,
      bytes: o.bytes,
      unchanged: o.unchanged,
      error: null,
    };
  }
  return {
    ...base,
    ...common,
    ok: false,
    watermark: attempt.partialWatermark ?? base.watermark,
    error: attempt.error ?? 'unknown error',
  };
}
