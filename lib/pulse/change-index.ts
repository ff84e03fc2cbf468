/**
 * Candidate lookup for matching many subscriptions against one set of changes. For each
 * filter member that every match must satisfy (a vendor, an ecosystem, a package, a CWE, KEV
 * only, kinds) it keeps the positions of the changes that could satisfy it, and hands a filter
 * the shortest such list. `changeMatches` (lib/changes/model.ts) still decides every candidate:
 * the index only skips changes that cannot match, so a superset is always safe — keys are
 * normalised the way changeMatches compares them (vendorKey, lower or upper case).
 */
import { changeMatches, packageIndexKey, packageNames, vendorKey, type ChangeFilter, type ChangeRow } from '../changes/model.ts';

function add(map: Map<string, number[]>, key: string, position: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [position]);
  else if (list.at(-1) !== position) list.push(position);
}

export class ChangeIndex {
  readonly changes: readonly ChangeRow[];
  readonly #byVendor = new Map<string, number[]>();
  readonly #byEcosystem = new Map<string, number[]>();
  readonly #byPackage = new Map<string, number[]>();
  readonly #byCwe = new Map<string, number[]>();
  readonly #byKind = new Map<string, number[]>();
  readonly #kev: number[] = [];
  /** Many subscriptions share a filter (a vendor, KEV only): each distinct one is matched once per window. */
  readonly #memo = new Map<string, ChangeRow[]>();

  /** `changes` sorted by detected_at (as the notifier reads them). */
  constructor(changes: readonly ChangeRow[]) {
    this.changes = changes;
    changes.forEach((c, i) => {
      if (c.vendor) add(this.#byVendor, vendorKey(c.vendor), i);
      for (const v of c.vendors) add(this.#byVendor, vendorKey(v), i);
      for (const e of c.ecosystems) add(this.#byEcosystem, e.toLowerCase(), i);
      for (const name of packageNames(c)) add(this.#byPackage, name, i);
      for (const w of c.cwe_ids) add(this.#byCwe, w.toUpperCase(), i);
      add(this.#byKind, c.kind, i);
      if (c.in_kev === true) this.#kev.push(i);
    });
  }

  /** Positions of the changes that can match, ascending; null when the filter narrows nothing. */
  candidates(filter: ChangeFilter): readonly number[] | null {
    const lists: (readonly number[])[] = [];
    const none: readonly number[] = [];
    if (filter.vendor !== undefined) lists.push(this.#byVendor.get(vendorKey(filter.vendor)) ?? none);
    if (filter.ecosystem !== undefined) lists.push(this.#byEcosystem.get(filter.ecosystem.toLowerCase()) ?? none);
    if (filter.package !== undefined) lists.push(this.#byPackage.get(packageIndexKey(filter.package)) ?? none);
    if (filter.cwe !== undefined) lists.push(this.#byCwe.get(filter.cwe.toUpperCase()) ?? none);
    if (filter.kev_only === true) lists.push(this.#kev);
    if (filter.kinds && filter.kinds.length > 0) {
      const merged = filter.kinds.flatMap((k) => this.#byKind.get(k) ?? []);
      lists.push(filter.kinds.length > 1 ? merged.sort((a, b) => a - b) : merged);
    }
    if (lists.length === 0) return null;
    return lists.reduce((shortest, list) => (list.length < shortest.length ? list : shortest));
  }

  /** The changes detected after `from`, up to `to` inclusive, that match the filter, oldest first (do not mutate). */
  matches(filter: ChangeFilter, from: string, to: string): readonly ChangeRow[] {
    const key = `${from}|${to}|${JSON.stringify(filter)}`;
    let found = this.#memo.get(key);
    if (found === undefined) {
      found = this.#match(filter, from, to);
      this.#memo.set(key, found);
    }
    return found;
  }

  #match(filter: ChangeFilter, from: string, to: string): ChangeRow[] {
    const out: ChangeRow[] = [];
    const candidates = this.candidates(filter);
    if (candidates === null) {
      for (let i = firstAfter(this.changes, from); i < this.changes.length; i++) {
        const c = this.changes[i]!;
        if (c.detected_at > to) break;
        if (changeMatches(filter, c)) out.push(c);
      }
      return out;
    }
    for (const i of candidates) {
      const c = this.changes[i]!;
      if (c.detected_at <= from) continue;
      if (c.detected_at > to) break;
      if (changeMatches(filter, c)) out.push(c);
    }
    return out;
  }
}

/** First position whose detected_at is after `since` (changes sorted by detected_at). */
function firstAfter(changes: readonly ChangeRow[], since: string): number {
  let lo = 0;
  let hi = changes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (changes[mid]!.detected_at > since) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
