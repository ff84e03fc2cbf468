/**
 * `/cves/summary` (contract 2.4): the build's precomputed counts (`summary` table, active CVEs,
 * service-severity buckets summing to `total`, NVD v3 buckets beside them), the snapshot's
 * identity, per-source health from the manifest, and the live NVD poller's health read from
 * `<data>/poller-health.json` (written by `vulnintel poll`, cli/fetch/poller.ts).
 * Not to be confused with cve-summary.ts, the short CVE form other lists embed.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServingSnapshot } from '../snapshot/serving.ts';

export const POLLER_HEALTH_FILE = 'poller-health.json';

/** A poller that has not written its health for this long is reported `stale`. */
export const POLLER_STALE_SECONDS = 600;

/** Every count of the summary table, as numbers (DuckDB gives BIGINT). */
const COUNT_COLUMNS = [
  'total', 'critical', 'high', 'medium', 'low', 'unscored',
  'nvd_critical', 'nvd_high', 'nvd_medium', 'nvd_low', 'nvd_none',
  'kev', 'svc_kev', 'exploit_poc_available', 'v2_only', 'no_signal', 'rejected',
] as const;

export interface SourceHealth {
  /** Records this source gave the build; 0 when its folder was empty or absent. */
  records: number;
  files: number;
  /** Newest record time in the data (ISO), null when unknown. */
  newest_record: string | null;
  /** The source had records and its last fetch (if any ran here) did not fail. */
  healthy: boolean;
  /** Source-specific facts (EPSS model version, KEV catalog version, …). */
  detail: Record<string, unknown>;
  /** The fetcher's last status record (cli/fetch/status.ts), null when never fetched here. */
  fetch: unknown;
}

/** Everything of the summary that is fixed for a snapshot (all but the poller). */
async function snapshotPart(snapshot: ServingSnapshot): Promise<Record<string, unknown>> {
  const reader = await snapshot.pool.read(`SELECT * FROM summary LIMIT 1`);
  const row = (reader.getRowObjectsJson()[0] ?? {}) as Record<string, unknown>;
  const body: Record<string, unknown> = {};
  for (const column of COUNT_COLUMNS) body[column] = Number(row[column] ?? 0);
  body.newest_published = row.newest_published ?? null;
  body.newest_modified = row.newest_modified ?? null;
  body.snapshot = {
    build_id: snapshot.buildId,
    built_at: snapshot.manifest.built_at,
    schema_version: snapshot.manifest.schema_version,
    cves: snapshot.records.size,
  };
  const sources: Record<string, SourceHealth> = {};
  for (const [name, s] of Object.entries(snapshot.manifest.sources ?? {})) {
    const fetch = s.fetch as { ok?: boolean } | null;
    sources[name] = {
      records: s.records,
      files: s.files,
      newest_record: s.newest_record,
      healthy: s.records > 0 && fetch?.ok !== false,
      detail: s.detail,
      fetch: s.fetch ?? null,
    };
  }
  body.sources = sources;
  return body;
}

export function summaryBase(snapshot: ServingSnapshot): Promise<Record<string, unknown>> {
  return snapshot.memo('summary', () => snapshotPart(snapshot));
}

let cachedHealth: { path: string; at: number; value: Record<string, unknown> } | null = null;

/**
 * The poller's health as it wrote it, plus `age_seconds` (since its `updated_at`) and `stale`.
 * Without the file: `{"status": "not_running"}`. Read at most once a second (summary traffic
 * must not become file-system traffic).
 */
export async function readPollerHealth(dataDir: string, now = Date.now()): Promise<Record<string, unknown>> {
  const path = join(dataDir, POLLER_HEALTH_FILE);
  if (cachedHealth && cachedHealth.path === path && now - cachedHealth.at < 1000) return cachedHealth.value;
  let value: Record<string, unknown>;
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not a JSON object');
    const health = parsed as Record<string, unknown>;
    const updated = typeof health.updated_at === 'string' ? Date.parse(health.updated_at) : Number.NaN;
    const age = Number.isNaN(updated) ? null : Math.max(0, Math.round((now - updated) / 1000));
    value = {
      ...health,
      age_seconds: age,
      stale: health.status !== 'stopped' && (age === null || age > POLLER_STALE_SECONDS),
    };
  } catch (err) {
    value =
      (err as NodeJS.ErrnoException).code === 'ENOENT'
        ? { status: 'not_running', detail: `no ${POLLER_HEALTH_FILE} in the data folder: no NVD poller runs here` }
        : { status: 'unknown', detail: `${POLLER_HEALTH_FILE} could not be read: ${(err as Error).message}` };
  }
  cachedHealth = { path, at: now, value };
  return value;
}
