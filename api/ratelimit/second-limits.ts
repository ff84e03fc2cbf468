/**
 * Per-second limits of one replica (contract §8.1 "sustained per second" and §8.2 burst cap),
 * in memory: per caller, a fixed window of `secondWindowMs` starting with the caller's first
 * request in it, holding one count per tier and one total across tiers.
 *
 * Every arrival counts, refused or not: the window is at most one second long, so counting
 * refusals never locks a caller out longer, and it keeps a caller that ignores 429s from
 * getting more through than one that backs off.
 */
import { WindowTable, type Window } from './window-table.ts';
import type { TierIndex } from './tiers.ts';

export interface SecondWindow extends Window {
  /** Requests per tier in this window, indexed by TierIndex. */
  readonly byTier: [number, number, number, number];
  /** Requests across all tiers in this window (the burst cap's count). */
  total: number;
}

export type SecondVerdict = 'admit' | 'sustained' | 'burst';

const secondWindowKind = {
  create: (resetAt: number): SecondWindow => ({ resetAt, byTier: [0, 0, 0, 0], total: 0 }),
  restart(window: SecondWindow, resetAt: number): void {
    window.resetAt = resetAt;
    window.byTier[0] = window.byTier[1] = window.byTier[2] = window.byTier[3] = 0;
    window.total = 0;
  },
};

export class SecondLimits {
  readonly #table: WindowTable<SecondWindow>;
  readonly #perTier: readonly [number, number, number, number];
  readonly #burst: number;

  constructor(perTier: readonly [number, number, number, number], burst: number, windowMs: number, maxCallers: number) {
    this.#table = new WindowTable(windowMs, secondWindowKind, maxCallers);
    this.#perTier = perTier;
    this.#burst = burst;
  }

  /** Counts one request and returns the caller's window (read it for the verdict and headers). */
  hit(caller: string, tier: TierIndex, now: number): SecondWindow {
    const window = this.#table.current(caller, now);
    window.byTier[tier]++;
    window.total++;
    return window;
  }

  /** The sustained limit of the tier is checked first: it is the smaller number and the usual cause. */
  verdict(window: SecondWindow, tier: TierIndex): SecondVerdict {
    if (window.byTier[tier] > this.#perTier[tier]) return 'sustained';
    if (window.total > this.#burst) return 'burst';
    return 'admit';
  }

  /** Requests this caller can still make on this tier in this window, on this replica. */
  remaining(window: SecondWindow, tier: TierIndex): number {
    return Math.max(0, Math.min(this.#perTier[tier] - window.byTier[tier], this.#burst - window.total));
  }

  limitOf(tier: TierIndex): number {
    return this.#perTier[tier];
  }

  get burst(): number {
    return this.#burst;
  }

  sweep(now: number): number {
    return this.#table.sweep(now);
  }

  get trackedCallers(): number {
    return this.#table.size;
  }
}
