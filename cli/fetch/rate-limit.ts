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

/** Called once the request has been answered (or has failed): books it in the budget. */
export type Booking = () => void;

export interface RateLimiter {
  /** Resolves once one more request fits in the budget; call what it returns when it is answered. */
  acquire(signal?: AbortSignal): Promise<Booking>;
}

/**
 * The server counts a request when it arrives, which we cannot see: somewhere between sending
 * it and reading the answer's headers. Booked when it was sent, the sixth request could reach
 * NVD a few milliseconds less than 30 s after the first (its way there took longer) and be
 * refused with a 403. So a request holds a slot from the moment it is let through and is booked
 * at the time its answer arrived, always later than NVD's count; the window starts there.
 */
export class RollingWindowLimiter implements RateLimiter {
  /** When the answers of the requests still inside the window arrived, oldest first. */
  private readonly booked: number[] = [];
  private inFlight = 0;
  private released: Array<() => void> = [];

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
    private readonly sleep: Sleep = realSleep,
  ) {
    if (limit < 1) throw new Error('rate limit must allow at least one request');
  }

  async acquire(signal?: AbortSignal): Promise<Booking> {
    for (;;) {
      signal?.throwIfAborted();
      const now = this.now();
      while (this.booked.length > 0 && this.booked[0]! <= now - this.windowMs) this.booked.shift();
      if (this.booked.length + this.inFlight < this.limit) {
        this.inFlight++;
        let done = false;
        return () => {
          if (done) return;
          done = true;
          this.inFlight--;
          this.booked.push(this.now());
          const waiting = this.released;
          this.released = [];
          for (const wake of waiting) wake();
        };
      }
      if (this.booked.length > 0) {
        await this.sleep(this.booked[0]! + this.windowMs - now, signal);
      } else {
        // Every slot is held by a request not yet answered: its booking starts the wait.
        await new Promise<void>((resolve, reject) => {
          const onAbort = () => reject(signal!.reason);
          signal?.addEventListener('abort', onAbort, { once: true });
          this.released.push(() => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          });
        });
      }
    }
  }
}
