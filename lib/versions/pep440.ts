/**
 * PyPI: PEP 440 (epochs, pre/post/dev releases, local versions), parsed by `@renovatebot/pep440`.
 *
 * The library's `compare(a, b)` parses both strings and derives their sort key on every call;
 * a range check compares the same bounds again and again, so the order keeps each version's
 * key (parsed once, see orderOf) and compares keys. The key is PEP 440's (packaging's
 * `_cmpkey`), built from the library's parse exactly as the library builds it; a test checks
 * both agree on every pair of the documented examples.
 */
import { parse } from '@renovatebot/pep440';
import { orderOf, type VersionOrder } from './scheme.ts';

/** A key part: a number, a string, ±Infinity for "absent", or a tuple of parts (Python's tuple order). */
type KeyPart = number | string | KeyPart[];

interface Parsed {
  epoch: number;
  release: number[];
  pre: [string, number] | null;
  post: [string, number] | null;
  dev: [string, number] | null;
  local: (string | number)[] | null;
}

function sortKey(p: Parsed): KeyPart[] {
  // Trailing zeros of the release do not count: 1.0 == 1.0.0.
  const release = [...p.release];
  while (release.length > 0 && release[release.length - 1] === 0) release.pop();
  // 1.0.dev0 sorts before 1.0a0: a dev release without pre or post takes -Infinity as its pre.
  const pre: KeyPart = p.pre ?? (!p.post && p.dev ? -Infinity : Infinity);
  const post: KeyPart = p.post ?? -Infinity;
  const dev: KeyPart = p.dev ?? Infinity;
  // Local segments: alphanumeric before numeric, numeric by value, shorter first on a tie.
  const local: KeyPart = p.local === null ? -Infinity : p.local.map((i) => (Number.isNaN(Number(i)) ? [-Infinity, i] : [Number(i), '']));
  return [p.epoch, release, pre, post, dev, local];
}

/** Python's comparison of the key tuples, as the library ports it (a scalar against a tuple compares as a 1-tuple). */
function compareKey(a: KeyPart, b: KeyPart): number {
  if (a === b) return 0;
  if (Array.isArray(a) !== Array.isArray(b)) {
    a = Array.isArray(a) ? a : [a];
    b = Array.isArray(b) ? b : [b];
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const r = compareKey(a[i]!, b[i]!);
      if (r !== 0) return r;
    }
    return a.length - b.length;
  }
  if (a === -Infinity || b === Infinity) return -1;
  if (a === Infinity || b === -Infinity) return 1;
  return a < b ? -1 : 1;
}

export const PEP440: VersionOrder = orderOf(
  'pep440',
  (v) => {
    const parsed = parse(v) as unknown as Parsed | null;
    return parsed ? sortKey(parsed) : null;
  },
  compareKey,
);
