/**
 * The live NVD poller: every interval, fetch NVD changes since the watermark, and when there
 * were any, rebuild and publish. Its health goes to `<data>/poller-health.json` (written
 * atomically at every state change and every heartbeat while idle), which `/cves/summary`
 * reads live. A signal stops it cleanly: the current request is aborted (the NVD cursor is
 * saved page by page), a running build is let finish (publishing is atomic), health says
 * `stopped`. Once a build is published, the NVD deltas it was built from are folded into the
 * base (nvd-fold.ts), so `nvd/delta/` stays bounded.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { info } from '../../lib/log.ts';
import { currentPointer } from '../../lib/snapshot-layout.ts';
import type { BuildOptions } from '../build/options.ts';
import { writeJsonAtomic } from './atomic.ts';
import type { BuildFn } from './build-step.ts';
import type { FetchConfig } from './config.ts';
import { describeError } from './errors.ts';
import type { HttpClient } from './http.ts';
import { acquireFetchLock, LockBusyError } from './lock.ts';
import { realSleep, type Sleep } from './rate-limit.ts';
import { foldPublishedDeltas } from './update.ts';
import { listNvdDeltas } from './nvd-fold.ts';
import { fetchSources } from './run.ts';
import type { SourceFetcher } from './sources/types.ts';

export interface PollerHealth {
  /** `polling` (fetching NVD), `building`, `idle` (waiting for the next poll), `stopped`. */
  status: 'starting' | 'polling' | 'building' | 'idle' | 'stopped';
  pid: number;
  started_at: string;
  interval_seconds: number;
  /** Start of the last poll. */
  last_poll_at: string | null;
  last_poll_ok: boolean | null;
  /** End of the last successful poll. */
  last_success_at: string | null;
  /** NVD lastModified high-water mark: every NVD change before it is in the raw data. */
  nvd_watermark: string | null;
  /** How far the raw data lags behind NVD, as of `updated_at` (now − nvd_watermark). */
  lag_seconds: number | null;
  /** CVE records the last successful poll fetched. */
  last_changes: number | null;
  last_build_id: string | null;
  last_published_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
  polls_ok: number;
  polls_failed: number;
  /**
   * Polls not made because another fetch (the nightly `update`) held the raw folder: that run
   * fetches NVD itself, so a skip is no failure. A fetch that never lets go shows in
   * `lag_seconds`, which grows while polls are skipped.
   */
  polls_skipped: number;
  last_skipped_at: string | null;
  consecutive_failures: number;
  next_poll_at: string | null;
  updated_at: string;
}

export interface PollerOptions {
  rawDir: string;
  dataDir: string;
  intervalMs: number;
  once: boolean;
  config: FetchConfig;
  build: BuildFn;
  buildOptions: BuildOptions;
  signal: AbortSignal;
  now?: () => Date;
  sleep?: Sleep;
  /** Health rewrite period while idle (default 60 s). */
  heartbeatMs?: number;
  http?: HttpClient;
  /** Replace the NVD fetcher (tests). */
  nvdFetcher?: SourceFetcher;
  /** Runs after each publish (the /pulse notify step); never fails the poll. */
  afterPublish?: () => Promise<void>;
}

export function healthPath(dataDir: string): string {
  return join(dataDir, 'poller-health.json');
}

async function previousHealth(dataDir: string): Promise<Partial<PollerHealth>> {
  try {
    return JSON.parse(await readFile(healthPath(dataDir), 'utf8')) as Partial<PollerHealth>;
  } catch {
    return {};
  }
}

export async function runPoller(opts: PollerOptions): Promise<PollerHealth> {
  const now = opts.now ?? (() => new Date());
  const sleep = opts.sleep ?? realSleep;
  const heartbeat = opts.heartbeatMs ?? 60_000;
  const prev = await previousHealth(opts.dataDir);
  // A restart keeps the history (counters, last success) but not the state of the old process.
  const health: PollerHealth = {
    status: 'starting',
    pid: process.pid,
    started_at: now().toISOString(),
    interval_seconds: Math.round(opts.intervalMs / 1000),
    last_poll_at: prev.last_poll_at ?? null,
    last_poll_ok: prev.last_poll_ok ?? null,
    last_success_at: prev.last_success_at ?? null,
    nvd_watermark: prev.nvd_watermark ?? null,
    lag_seconds: null,
    last_changes: prev.last_changes ?? null,
    last_build_id: prev.last_build_id ?? null,
    last_published_at: prev.last_published_at ?? null,
    last_error: prev.last_error ?? null,
    last_error_at: prev.last_error_at ?? null,
    polls_ok: prev.polls_ok ?? 0,
    polls_failed: prev.polls_failed ?? 0,
    polls_skipped: prev.polls_skipped ?? 0,
    last_skipped_at: prev.last_skipped_at ?? null,
    consecutive_failures: prev.consecutive_failures ?? 0,
    next_poll_at: null,
    updated_at: now().toISOString(),
  };
  const write = async () => {
    const t = now();
    health.updated_at = t.toISOString();
    health.lag_seconds = health.nvd_watermark ? Math.max(0, Math.round((t.getTime() - Date.parse(health.nvd_watermark)) / 1000)) : null;
    await writeJsonAtomic(healthPath(opts.dataDir), health);
  };
  // Past the first write: a health file that cannot be written (the disk full) is said once,
  // never fatal. Thrown, it ended the poller the moment the disk filled (its comment below
  // promised it survives a full disk), and one thrown just after taking the fetch lock left
  // the lock held by the live process, refusing every later poll and the nightly update.
  let healthFailing = false;
  const keepHealth = async () => {
    try {
      await write();
      healthFailing = false;
    } catch (err) {
      if (!healthFailing) info(`! poller health not written (the poller goes on): ${describeError(err)}`);
      healthFailing = true;
    }
  };
  const fail = (message: string) => {
    health.last_poll_ok = false;
    health.last_error = message;
    health.last_error_at = now().toISOString();
    health.polls_failed++;
    health.consecutive_failures++;
    info(`✗ poll: ${message}`);
  };
  await write();

  const nvdDir = join(opts.rawDir, 'nvd');
  const pollOnce = async (): Promise<void> => {
    let lock;
    try {
      lock = await acquireFetchLock(opts.rawDir);
    } catch (err) {
      if (!(err instanceof LockBusyError)) throw err;
      // Nothing was tried: the last poll (its start, its outcome) and the failure counters stay
      // as they were.
      health.polls_skipped++;
      health.last_skipped_at = now().toISOString();
      info(`- poll skipped: ${err.message}`);
      return;
    }
    health.status = 'polling';
    health.last_poll_at = now().toISOString();
    health.next_poll_at = null;
    // A first full pull or a build takes minutes: keep `updated_at` fresh meanwhile, so a
    // monitor can tell a busy poller from a dead one.
    const beat = setInterval(() => void keepHealth(), heartbeat);
    beat.unref();
    try {
      await keepHealth();
      const [result] = await fetchSources({
        rawDir: opts.rawDir,
        config: opts.config,
        sources: ['nvd'],
        signal: opts.signal,
        now,
        sleep,
        ...(opts.http ? { http: opts.http } : {}),
        ...(opts.nvdFetcher ? { fetchers: { nvd: opts.nvdFetcher } } : {}),
      });
      if (!result || result.aborted) return;
      health.nvd_watermark = result.status.watermark;
      if (!result.ok) return fail(`NVD: ${result.error}`);
      const changes = result.outcome?.records ?? 0;
      health.last_changes = changes;
      // The deltas this build would read (the lock keeps any other fetch out until it is done).
      // Deltas are folded away once a snapshot built from them is published, so any left were
      // fetched by a poll (or a nightly run) whose build failed: not served yet, though this poll
      // found nothing new. Skipping the build then left them unpublished until NVD next changed.
      const built = await listNvdDeltas(nvdDir);
      // Nothing new, nothing pending and a snapshot already served: rebuilding would change nothing.
      if (changes > 0 || built.length > 0 || !existsSync(currentPointer(opts.dataDir))) {
        health.status = 'building';
        await keepHealth();
        try {
          const result = await opts.build(opts.buildOptions);
          if (!result.published) return fail(`build ${result.buildId} finished but did not publish`);
          health.last_build_id = result.buildId;
          health.last_published_at = now().toISOString();
          if (opts.afterPublish) await opts.afterPublish();
        } catch (err) {
          return fail(`build: ${describeError(err)}`);
        }
        await foldPublishedDeltas(nvdDir, built);
      }
      health.last_poll_ok = true;
      health.last_success_at = now().toISOString();
      health.polls_ok++;
      health.consecutive_failures = 0;
      info(`✓ poll: ${changes} changed CVE records${health.status === 'building' ? `, published ${health.last_build_id}` : ''}`);
    } finally {
      clearInterval(beat);
      await lock.release();
    }
  };

  try {
    while (!opts.signal.aborted) {
      try {
        await pollOnce();
      } catch (err) {
        // Whatever went wrong (disk full, a bug), the poller survives to try again next time.
        if (!opts.signal.aborted) fail(describeError(err));
      }
      await keepHealth();
      if (opts.once || opts.signal.aborted) break;
      const next = now().getTime() + opts.intervalMs;
      health.status = 'idle';
      health.next_poll_at = new Date(next).toISOString();
      await keepHealth();
      while (!opts.signal.aborted && now().getTime() < next) {
        try {
          await sleep(Math.min(heartbeat, next - now().getTime()), opts.signal);
        } catch {
          break; // aborted
        }
        await keepHealth();
      }
    }
  } finally {
    health.status = 'stopped';
    health.next_poll_at = null;
    await keepHealth();
  }
  return health;
}
