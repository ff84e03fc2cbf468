/**
 * Runs the selected fetchers one after the other (progress bars stay readable, and the busiest
 * host, NVD, is rate-limited anyway), writes each source's status record, and never lets one
 * failing source stop the others: the caller decides what a failure means.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { formatDuration, info } from '../../lib/log.ts';
import { SOURCE_NAMES, type FetchConfig, type SourceName } from './config.ts';
import { describeError, isAbortError } from './errors.ts';
import { HttpClient } from './http.ts';
import { realSleep, type Sleep } from './rate-limit.ts';
import { FETCHERS } from './registry.ts';
import { PartialProgressError, type SourceFetcher, type SourceOutcome } from './sources/types.ts';
import { nextStatus, readSourceStatus, writeSourceStatus, type SourceStatus } from './status.ts';

export interface FetchRunOptions {
  rawDir: string;
  config: FetchConfig;
  sources?: readonly SourceName[];
  signal?: AbortSignal;
  /** Injected in tests (local server, fast sleeps). Default: built from `config.http`. */
  http?: HttpClient;
  now?: () => Date;
  sleep?: Sleep;
  full?: boolean;
  /** Replace fetchers (tests). */
  fetchers?: Partial<Record<SourceName, SourceFetcher>>;
}

export interface SourceRunResult {
  source: SourceName;
  ok: boolean;
  outcome?: SourceOutcome;
  error?: string;
  /** Aborted by a signal, not failed. */
  aborted?: boolean;
  status: SourceStatus;
}

export function httpClientFromConfig(config: FetchConfig): HttpClient {
  const h = config.http;
  return new HttpClient({
    ...(h.userAgent ? { userAgent: h.userAgent } : {}),
    timeoutMs: h.timeoutSeconds * 1000,
    retries: h.retries,
    backoffMs: h.backoffSeconds * 1000,
    maxRetryWaitMs: h.maxRetryWaitSeconds * 1000,
    rewrites: h.urlRewrites,
    log: info,
  });
}

export async function fetchSources(opts: FetchRunOptions): Promise<SourceRunResult[]> {
  const names = opts.sources ?? SOURCE_NAMES;
  const signal = opts.signal ?? new AbortController().signal;
  const now = opts.now ?? (() => new Date());
  const http = opts.http ?? httpClientFromConfig(opts.config);
  const results: SourceRunResult[] = [];
  try {
    for (const source of names) {
      if (signal.aborted) break;
      const fetcher = opts.fetchers?.[source] ?? FETCHERS[source];
      const dir = join(opts.rawDir, source);
      await mkdir(dir, { recursive: true });
      const previous = await readSourceStatus(opts.rawDir, source);
      const startedAt = now();
      info(`▶ fetch ${source}`);
      let result: SourceRunResult;
      try {
        const outcome = await fetcher.fetch({
          rawDir: opts.rawDir,
          dir,
          config: opts.config,
          http,
          signal,
          now,
          sleep: opts.sleep ?? realSleep,
          log: info,
          full: opts.full ?? false,
        });
        const status = nextStatus(previous, source, {
          startedAt,
          finishedAt: now(),
          // Nothing new: keep the record count of the data in place.
          outcome: { ...outcome, records: outcome.unchanged ? null : outcome.records },
        });
        result = { source, ok: true, outcome, status };
        info(`✓ fetch ${source}: ${outcome.detail} (${formatDuration(now().getTime() - startedAt.getTime())})`);
      } catch (err) {
        const inner = err instanceof PartialProgressError ? err.inner : err;
        const aborted = isAbortError(inner) || signal.aborted;
        const message = aborted ? 'interrupted (stopped by a signal before completion)' : describeError(inner);
        const status = nextStatus(previous, source, {
          startedAt,
          finishedAt: now(),
          error: message,
          partialWatermark: err instanceof PartialProgressError ? err.watermark : null,
        });
        result = { source, ok: false, error: message, aborted, status };
        info(`✗ fetch ${source}: ${message}; the previous raw data stays in place`);
      }
      await writeSourceStatus(opts.rawDir, result.status);
      results.push(result);
    }
  } finally {
    if (!opts.http) await http.close();
  }
  return results;
}
