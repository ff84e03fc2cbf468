/**
 * The per-minute count (contract §8.1): one counter per caller across all paths, in a fixed
 * window that starts with the caller's first request. Every request that reaches it counts,
 * including the ones it refuses (see docs/rate-limits.md for why).
 *
 * Two stores answer the same question: memory (one replica, and the fallback while Redis is
 * away) and Redis (shared by all replicas, minute-redis.ts).
 */
import { WindowTable, type Window } from './window-table.ts';

export interface MinuteCount {
  /** Requests of this caller in the current window, this one included. */
  count: number;
  /** Epoch ms at which the window ends. */
  resetAt: number;
}

export interface MinuteStoreHealth {
  /** Where counts go right now: memory by design, Redis, or memory because Redis is away. */
  store: 'memory' | 'redis' | 'memory-fallback';
  redis?: {
    url: string;
    /** ioredis connection status (ready, connecting, reconnecting, end, …). */
    connection: string;
    degradedSince: string | null;
    lastError: string | null;
    outages: number;
  };
  /** Callers with a live window held in this replica's memory for the per-minute count. */
  localCallers: number;
}

export interface MinuteCounter {
  /** Counts one request of `caller`; synchronous in memory, one Redis round trip otherwise. */
  hit(caller: string, now: number): MinuteCount | Promise<MinuteCount>;
  sweep(now: number): void;
  health(): MinuteStoreHealth;
  close(): Promise<void>;
}

interface MinuteWindow extends Window, MinuteCount {}

const minuteWindowKind = {
  create: (resetAt: number): MinuteWindow => ({ resetAt, count: 0 }),
  restart(window: MinuteWindow, resetAt: number): void {
    window.resetAt = resetAt;
    window.count = 0;
  },
};

export class MemoryMinuteCounter implements MinuteCounter {
  readonly #table: WindowTable<MinuteWindow>;

  constructor(windowMs: number, maxCallers: number) {
    this.#table = new WindowTable(windowMs, minuteWindowKind, maxCallers);
  }

  /** Returns the caller's window record itself: no allocation per request. */
  hit(caller: string, now: number): MinuteCount {
    const window = this.#table.current(caller, now);
    window.count++;
    return window;
  }

  sweep(now: number): void {
    this.#table.sweep(now);
  }

  clear(): void {
    this.#table.clear();
  }

  health(): MinuteStoreHealth {
    return { store: 'memory', localCallers: this.#table.size };
  }

  async close(): Promise<void> {
    this.#table.clear();
  }
}
