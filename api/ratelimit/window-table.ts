/**
 * Fixed windows per caller, in memory: one record per caller, restarted in place when its window
 * has ended (no allocation per request once a caller is known), dropped by a periodic sweep
 * once expired, and bounded in number so a flood of distinct callers cannot exhaust memory.
 */

export interface Window {
  /** Epoch ms at which this window ends; the window started with the caller's first request. */
  resetAt: number;
}

export interface WindowKind<W extends Window> {
  /** A record for a caller's first request, its window ending at `resetAt`. */
  create(resetAt: number): W;
  /** Zeroes the counts of an ended window and starts the next one, ending at `resetAt`. */
  restart(window: W, resetAt: number): void;
}

export class WindowTable<W extends Window> {
  readonly #windows = new Map<string, W>();
  readonly #lengthMs: number;
  readonly #kind: WindowKind<W>;
  readonly #maxEntries: number;

  constructor(lengthMs: number, kind: WindowKind<W>, maxEntries: number) {
    this.#lengthMs = lengthMs;
    this.#kind = kind;
    this.#maxEntries = maxEntries;
  }

  /** The caller's current window, started now if it had none or its last one has ended. */
  current(key: string, now: number): W {
    const window = this.#windows.get(key);
    if (window === undefined) return this.#insert(key, now);
    if (now >= window.resetAt) this.#kind.restart(window, now + this.#lengthMs);
    return window;
  }

  /** Drops every window that has ended; returns how many were dropped. */
  sweep(now: number): number {
    let dropped = 0;
    for (const [key, window] of this.#windows) {
      if (now >= window.resetAt) {
        this.#windows.delete(key);
        dropped++;
      }
    }
    return dropped;
  }

  clear(): void {
    this.#windows.clear();
  }

  get size(): number {
    return this.#windows.size;
  }

  #insert(key: string, now: number): W {
    if (this.#windows.size >= this.#maxEntries && this.sweep(now) === 0) {
      // Still full of live windows: forget the longest-known caller. This fails open (that
      // caller's count restarts) rather than refusing callers the table has no room for.
      const oldest = this.#windows.keys().next();
      if (oldest.done !== true) this.#windows.delete(oldest.value);
    }
    const window = this.#kind.create(now + this.#lengthMs);
    this.#windows.set(key, window);
    return window;
  }
}
