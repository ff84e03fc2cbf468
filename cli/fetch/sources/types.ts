/** What every source fetcher receives and returns. */
import type { Sleep } from '../rate-limit.ts';
import type { HttpClient } from '../http.ts';
import type { FetchConfig } from '../config.ts';

export interface FetchContext {
  /** The raw root (`--raw`). */
  rawDir: string;
  /** This source's folder, `<raw>/<source>/`. */
  dir: string;
  config: FetchConfig;
  http: HttpClient;
  /** Fires on SIGTERM/SIGINT: stop at the next request, keep the cursor. */
  signal: AbortSignal;
  now: () => Date;
  sleep: Sleep;
  log: (message: string) => void;
  /** Ask the source for a complete re-download (NVD: a new full pull, swapped in when done). */
  full: boolean;
}

export interface SourceOutcome {
  /** Records fetched (null: unchanged, keep the previous count). */
  records: number | null;
  bytes: number;
  watermark: string | null;
  unchanged: boolean;
  /** One line for the summary, e.g. "3 pages, 5,120 CVEs". */
  detail: string;
}

export interface SourceFetcher {
  /** Raw folder name, also the `--sources` name and the status file name. */
  name: string;
  fetch(ctx: FetchContext): Promise<SourceOutcome>;
}

/**
 * A failure that still moved the source forward (e.g. NVD finished two windows, then the third
 * failed): the status keeps the reached watermark.
 */
export class PartialProgressError extends Error {
  constructor(
    readonly inner: unknown,
    readonly watermark: string | null,
  ) {
    super(inner instanceof Error ? inner.message : String(inner));
    this.name = 'PartialProgressError';
  }
}
