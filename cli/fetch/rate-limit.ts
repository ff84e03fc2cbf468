/**
 * Client-side request budget: at most `limit` requests in any rolling window of `windowMs`
 * (NVD: 5 per 30 s without a key, 50 with one). Enforced before each request, so the server
 * never has to throttle us; the clock and the sleep are injectable so tests run in ms.
 */
import { setTimeout as delay } from 'node:timers/promises';

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const realSleep: Sleep = async (ms, signal) => {
  if (ms > 0) await delay(ms, undefined, signal ? { signal } : undefined);
  else signal?.throwIfAborted();
};

export interface RateLimiter {
  /** Resolves once one more request fits in the budget, and books it. */
  acquire(signal?: AbortSignal): Promise<void>;
}

export class RollingWindowLimiter implements RateLimiter {
  private readonly sent: number[] = [];

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
    private readonly sleep: Sleep = realSleep,
  ) {
    if (limit < 1) throw new Error('rate limit must allow at least one request');
  }

  async acquire(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const now = this.now();
      while (this.sent.length > 0 && this.sent[0]! <= now - this.windowMs) this.sent.shift();
      if (this.sent.length < this.limit) {
        this.sent.push(now);
        return;
      }
      await this.sleep(this.sent[0]! + this.windowMs - now, signal);
    }
  }
}
