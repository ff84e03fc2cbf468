/**
 * One ecosystem's version order: `compare` is the ecosystem's own total order over the versions
 * it accepts, and throws VersionSyntaxError for a string that is not a version there (never a
 * guess: a wrong order would answer "not affected" wrongly).
 */
export interface VersionOrder {
  /** Short name of the algorithm, shown in answers (`semver`, `pep440`, `dpkg`, …). */
  readonly name: string;
  /** Throws VersionSyntaxError when `version` is not a version of this order. */
  check(version: string): void;
  /** <0, 0, >0; throws VersionSyntaxError for an invalid side. */
  compare(a: string, b: string): number;
}

export class VersionSyntaxError extends Error {
  constructor(
    readonly version: string,
    readonly order: string,
    detail?: string,
  ) {
    super(`"${version}" is not a valid ${order} version${detail ? ` (${detail})` : ''}`);
    this.name = 'VersionSyntaxError';
  }
}

/** Builds an order from a parser (throws or returns null for invalid) and a comparator of parsed values. */
/** Parsed versions kept per order: range checks compare the same bounds again and again. */
const PARSE_CACHE_SIZE = 50_000;

export function orderOf<P>(name: string, parse: (v: string) => P | null, compareParsed: (a: P, b: P) => number): VersionOrder {
  const cache = new Map<string, P | null>();
  const parsed = (v: string): P => {
    let p = cache.get(v);
    if (p === undefined) {
      p = parse(v);
      // Bounded: past the size the cache starts again (simpler than LRU, and rare).
      if (cache.size >= PARSE_CACHE_SIZE) cache.clear();
      cache.set(v, p);
    }
    if (p === null) throw new VersionSyntaxError(v, name);
    return p;
  };
  return {
    name,
    check: (v) => void parsed(v),
    compare: (a, b) => Math.sign(compareParsed(parsed(a), parsed(b))),
  };
}

/** Plain three-way comparison of numbers or strings (code unit order, as C's strcmp on ASCII). */
export function cmp<T extends number | string | bigint>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
