/**
 * PyPI: PEP 440 (epochs, pre/post/dev releases, local versions), read with the version pattern
 * of `@renovatebot/pep440` (packaging's own regex) and ordered by packaging's `_cmpkey`.
 *
 * The numbers are BigInts: the library's `parse` turns every number into a JS number, so two
 * releases differing past 2^53 (`1.12345678901234567` and `…568`, date-stamped builds) came out
 * equal, where packaging compares Python's exact integers. The key is built once per version
 * (see orderOf): a range check compares the same bounds again and again. A test checks the
 * library and this order agree on every pair of the documented examples.
 */
import { VERSION_PATTERN } from '@renovatebot/pep440/lib/version.js';
import { orderOf, type VersionOrder } from './scheme.ts';

/** A key part: a number, a string, ±Infinity for "absent", or a tuple of parts (Python's tuple order). */
type KeyPart = bigint | number | string | KeyPart[];

const VERSION = new RegExp(`^${VERSION_PATTERN}$`, 'i');

/** packaging's `_parse_letter_version`: the spelling normalised, an implicit 0, `1.0-1` a post release. */
function letterVersion(letter: string | undefined, number: string | undefined): [string, bigint] | null {
  if (letter) {
    const lower = letter.toLowerCase();
    const spelled = lower === 'alpha' ? 'a' : lower === 'beta' ? 'b' : lower === 'c' || lower === 'pre' || lower === 'preview' ? 'rc' : lower === 'rev' || lower === 'r' ? 'post' : lower;
    return [spelled, BigInt(number ?? 0)];
  }
  return number ? ['post', BigInt(number)] : null;
}

const DIGITS = /^[0-9]+$/;

function sortKey(version: string): KeyPart[] | null {
  const groups = VERSION.exec(version)?.groups;
  if (!groups) return null;
  const epoch = BigInt(groups.epoch ?? 0);
  // Trailing zeros of the release do not count: 1.0 == 1.0.0.
  const release = groups.release!.split('.').map(BigInt);
  while (release.length > 0 && release[release.length - 1] === 0n) release.pop();
  const preOf = letterVersion(groups.pre_l, groups.pre_n);
  const postOf = letterVersion(groups.post_l, groups.post_n1 ?? groups.post_n2);
  const devOf = letterVersion(groups.dev_l, groups.dev_n);
  // 1.0.dev0 sorts before 1.0a0: a dev release without pre or post takes -Infinity as its pre.
  const pre: KeyPart = preOf ?? (!postOf && devOf ? -Infinity : Infinity);
  const post: KeyPart = postOf ?? -Infinity;
  const dev: KeyPart = devOf ?? Infinity;
  // Local segments: alphanumeric before numeric, numeric by value, shorter first on a tie.
  const local: KeyPart = groups.local
    ? groups.local.split(/[._-]/).map((part) => (DIGITS.test(part) ? [BigInt(part), ''] : [-Infinity, part.toLowerCase()]))
    : -Infinity;
  return [epoch, release, pre, post, dev, local];
}

/** Python's comparison of the key tuples (a scalar against a tuple compares as a 1-tuple). */
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

export const PEP440: VersionOrder = orderOf('pep440', sortKey, compareKey);
