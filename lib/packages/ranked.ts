/**
 * A package's range bounds ranked once per version order, so that a question costs a binary
 * search and integer comparisons instead of a version comparison per bound of every range.
 *
 * The distinct bounds (introduced, fixed, last_affected, limit) of the package's ranges in one
 * order are sorted ascending; equal versions spelled apart share a rank. A version's place among
 * them is 2r+1 when it equals rank r and 2r when it falls just below rank r: comparing it with a
 * ranked bound is comparing two integers. A branch whose bounds are all ranked is then a span of
 * places (BranchSpan), and the rows a version's ranges hold are found by one pass of integer
 * comparisons over the spans (SpanTable).
 */
import { orderFor } from '../versions/ecosystems.ts';
import { VersionSyntaxError, type VersionOrder } from '../versions/scheme.ts';
import type { PackageRow } from './index.ts';
import { unbounded, type RangeBranch, type VersionProbe } from './ranges.ts';

/** The readable versions of `values` in `order`, ascending (equal ones spelled apart keep their order). */
export function readableSorted(values: Iterable<string>, order: VersionOrder): string[] {
  const readable: string[] = [];
  for (const v of values) {
    try {
      order.check(v);
      readable.push(v);
    } catch {
      // a version the order cannot read has no place in the order
    }
  }
  return readable.sort((a, b) => order.compare(a, b));
}

/** How many of `sorted` (ascending in `order`) come before `version`, or are at most `version` with `orEqual`. */
export function countBefore(sorted: readonly string[], version: string, order: VersionOrder, orEqual: boolean): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const c = order.compare(sorted[mid]!, version);
    if (c < 0 || (orEqual && c === 0)) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** What is ranked: a package's rows with ranges, and where the rankings are kept. */
export interface RankedPackage {
  ranged: readonly { row: PackageRow }[];
  ranked: Map<VersionOrder, RankedBounds>;
}

export interface RankedBounds {
  /** One version per rank, ascending. */
  sorted: string[];
  rankOf: Map<string, number>;
  /** The branches of this order as spans of places (see branchSpan), each made when first asked. */
  spans: Map<RangeBranch, BranchSpan | null>;
  /** The package's rows judged by spans alone in this order, made when first asked. */
  table?: SpanTable;
}

export function rankBounds(pkg: RankedPackage, order: VersionOrder): RankedBounds {
  let ranked = pkg.ranked.get(order);
  if (ranked) return ranked;
  const bounds = new Set<string>();
  for (const { row } of pkg.ranged) {
    for (const b of row.fixed_branches!) {
      if (orderFor(row.ecosystem, b.range_type) !== order) continue;
      // An unreadable bound stays unranked: the order compares it itself, and says so.
      for (const bound of [b.introduced, b.fixed, b.last_affected, b.limit]) if (!unbounded(bound)) bounds.add(bound!);
    }
  }
  const all = readableSorted(bounds, order);
  const sorted: string[] = [];
  const rankOf = new Map<string, number>();
  for (const bound of all) {
    if (sorted.length === 0 || order.compare(sorted[sorted.length - 1]!, bound) !== 0) sorted.push(bound);
    rankOf.set(bound, sorted.length - 1);
  }
  ranked = { sorted, rankOf, spans: new Map() };
  pkg.ranked.set(order, ranked);
  return ranked;
}

/**
 * A branch as the places it holds: a version at place p is inside when lo ≤ p < hi. The
 * schema's tests read as places: at or after introduced at rank i is p ≥ 2i+1; before fixed at
 * rank f is p < 2f+1; at or before last_affected at rank l is p < 2l+2; before limit at rank m
 * is p < 2m+1. Null when a bound is not ranked (unreadable, or a `0`/`*` where the schema
 * expects a version): withinBounds (ranges.ts) then compares as it always did.
 */
export interface BranchSpan {
  lo: number;
  hi: number;
}

function branchSpan(ranked: RankedBounds, branch: RangeBranch): BranchSpan | null {
  let lo = 0;
  let hi = Number.POSITIVE_INFINITY;
  if (!unbounded(branch.introduced)) {
    const rank = ranked.rankOf.get(branch.introduced!);
    if (rank === undefined) return null;
    lo = 2 * rank + 1;
  }
  const end = branch.fixed ?? branch.last_affected;
  if (end !== null) {
    const rank = ranked.rankOf.get(end);
    if (rank === undefined) return null;
    hi = branch.fixed !== null ? 2 * rank + 1 : 2 * rank + 2;
  }
  if (!unbounded(branch.limit)) {
    const rank = ranked.rankOf.get(branch.limit!);
    if (rank === undefined) return null;
    hi = Math.min(hi, 2 * rank + 1);
  }
  return { lo, hi };
}

function spanOf(ranked: RankedBounds, branch: RangeBranch): BranchSpan | null {
  let span = ranked.spans.get(branch);
  if (span === undefined) ranked.spans.set(branch, (span = branchSpan(ranked, branch)));
  return span;
}

/**
 * Compares a version with the package's bounds through their ranks: its place among them is
 * found once per order; a bound not ranked (unreadable) is compared by the order, which throws
 * as it always did. A class, not closures: one is made per question and per upgrade candidate.
 */
export class RankedProbe implements VersionProbe {
  private readonly places = new Map<VersionOrder, number>();

  constructor(
    private readonly pkg: RankedPackage,
    private readonly version: string,
  ) {}

  compare(order: VersionOrder, bound: string): number {
    const ranked = rankBounds(this.pkg, order);
    const rank = ranked.rankOf.get(bound);
    if (rank === undefined) return order.compare(this.version, bound);
    return Math.sign(this.place(order) - (2 * rank + 1));
  }

  /** The branch's span against the version's place; undefined when the branch has no span or the version no place. */
  holds(order: VersionOrder, branch: RangeBranch): boolean | undefined {
    const span = spanOf(rankBounds(this.pkg, order), branch);
    if (span === null) return undefined;
    let place: number;
    try {
      place = this.place(order);
    } catch (err) {
      // The version is no version of this order: withinBounds says so as it always did.
      if (err instanceof VersionSyntaxError) return undefined;
      throw err;
    }
    return span.lo <= place && place < span.hi;
  }

  /** The version's place among the ranked bounds of `order`; throws VersionSyntaxError when the order cannot read it. */
  place(order: VersionOrder): number {
    let place = this.places.get(order);
    if (place !== undefined) return place;
    const ranked = rankBounds(this.pkg, order);
    const known = ranked.rankOf.get(this.version);
    if (known !== undefined) place = 2 * known + 1;
    else {
      const below = countBefore(ranked.sorted, this.version, order, false);
      place = below < ranked.sorted.length && order.compare(ranked.sorted[below]!, this.version) === 0 ? 2 * below + 1 : 2 * below;
    }
    this.places.set(order, place);
    return place;
  }
}

/**
 * The rows of `pkg.ranged` whose verdict in one order is a matter of spans alone: every branch
 * is of that order with all its bounds ranked, and there is no explicit `versions` list. Such a
 * row holds a version exactly when one of its spans holds the version's place, and otherwise
 * the version is simply outside it (no GIT, no unreadable bound, no list to look up): one pass
 * of integer comparisons over the spans finds the rows a version's ranges hold, instead of
 * judging every row.
 */
export interface SpanTable {
  /** Per entry of `pkg.ranged`: judged by spans here (1) or by judgeRow (0). */
  bySpans: Uint8Array;
  /** How many rows are judged by spans. */
  count: number;
  /** The spans of those rows: start, end (−1: no end) and the row's entry. */
  starts: Int32Array;
  ends: Int32Array;
  entries: Int32Array;
}

export function spanTable(pkg: RankedPackage, order: VersionOrder): SpanTable {
  const ranked = rankBounds(pkg, order);
  if (ranked.table) return ranked.table;
  const bySpans = new Uint8Array(pkg.ranged.length);
  const starts: number[] = [];
  const ends: number[] = [];
  const entries: number[] = [];
  let count = 0;
  pkg.ranged.forEach(({ row }, entry) => {
    const branches = row.fixed_branches!;
    if (branches.length === 0 || row.versions.length > 0) return;
    const spans: BranchSpan[] = [];
    for (const b of branches) {
      // Made here, not kept in `ranked.spans`: the table holds them (a scan asks most packages once).
      const span = orderFor(row.ecosystem, b.range_type) === order ? branchSpan(ranked, b) : null;
      if (span === null) return;
      spans.push(span);
    }
    bySpans[entry] = 1;
    count++;
    for (const span of spans) {
      starts.push(span.lo);
      ends.push(span.hi === Number.POSITIVE_INFINITY ? -1 : span.hi);
      entries.push(entry);
    }
  });
  const table: SpanTable = { bySpans, count, starts: Int32Array.from(starts), ends: Int32Array.from(ends), entries: Int32Array.from(entries) };
  ranked.table = table;
  return table;
}

/** Marks in `held` (one flag per entry of `pkg.ranged`) the span-judged rows that hold `place`. */
export function markHeld(table: SpanTable, place: number, held: Uint8Array): void {
  const { starts, ends, entries } = table;
  for (let i = 0; i < starts.length; i++) {
    const end = ends[i]!;
    if (starts[i]! <= place && (end === -1 || place < end)) held[entries[i]!] = 1;
  }
}
