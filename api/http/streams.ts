/**
 * Open Server-Sent Event streams of one server (`/pulse/stream`): how many each caller holds
 * (bounded, PULSE §3), and a way to end them all when the server closes, so a long-lived stream
 * never holds a shutdown for its whole grace period.
 */
import { rateLimited, type ApiError } from './errors.ts';

export const DEFAULT_HEARTBEAT_MS = 25_000;
export const DEFAULT_STREAMS_PER_CALLER = 5;
/** Seconds a caller at its bound is told to wait (a stream of its own may end by then). */
const STREAM_RETRY_AFTER_S = 60;

/**
 * The 429 of a caller already holding `max` open streams: the RateLimited answer the document
 * declares on every operation (the rate limiter's headers and RateLimitError body), with scope
 * `streams` and window `open` (a bound on streams open at once, not on requests in a window).
 * It carried only Retry-After and `limit`, so a client checking answers against the document
 * could not read it as one.
 */
export function streamBoundRefusal(max: number): ApiError {
  return rateLimited(`At most ${max} open change streams per caller; close one first.`, { retryAfter: STREAM_RETRY_AFTER_S, limit: max, window: 'open', scope: 'streams' });
}

export interface StreamLimits {
  /** Period of the SSE comment that keeps idle connections open (default 25 s). */
  heartbeatMs?: number;
  /** Open streams one caller may hold at once; one more is 429 (default 5). */
  maxPerCaller?: number;
}

export class StreamRegistry {
  readonly heartbeatMs: number;
  readonly maxPerCaller: number;
  private readonly perCaller = new Map<string, number>();
  private readonly enders = new Set<() => void>();

  constructor(limits: StreamLimits = {}) {
    this.heartbeatMs = limits.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    this.maxPerCaller = limits.maxPerCaller ?? DEFAULT_STREAMS_PER_CALLER;
  }

  /** Counts a new stream of `caller`, or returns null when the caller is at its bound. */
  open(caller: string, end: () => void): (() => void) | null {
    const count = this.perCaller.get(caller) ?? 0;
    if (count >= this.maxPerCaller) return null;
    this.perCaller.set(caller, count + 1);
    this.enders.add(end);
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      this.enders.delete(end);
      const left = (this.perCaller.get(caller) ?? 1) - 1;
      if (left <= 0) this.perCaller.delete(caller);
      else this.perCaller.set(caller, left);
    };
  }

  openFor(caller: string): number {
    return this.perCaller.get(caller) ?? 0;
  }

  /** Ends every open stream (server shutdown). */
  closeAll(): void {
    for (const end of [...this.enders]) end();
  }
}
