/** RubyGems: Gem::Version (`1.0.a` < `1.0`, segments compared numerically or lexically), by `@renovatebot/ruby-semver`. */
import { Version } from '@renovatebot/ruby-semver/dist/ruby/version.js';
import { orderOf, type VersionOrder } from './scheme.ts';

type Segment = number | string;

/** A version as the library reads it, with its canonical segments worked out once. */
interface GemVersion {
  text: string;
  segments: Segment[];
}

function parseGem(v: string): GemVersion | null {
  if (!Version.isCorrect(v)) return null;
  const version = Version.create(v)!;
  return { text: v, segments: version.canonicalSegments() as Segment[] };
}

/** The collator `localeCompare(…, undefined, { numeric: true })` builds on every call. */
const numericCollator = new Intl.Collator(undefined, { numeric: true });

/**
 * Gem::Version#<=> exactly as the library's `compare` computes it, over the kept segments: the
 * library derives them again on every call (a regex scan and three array copies per side) and
 * builds a collator per segment compared, and range checks compare the same bounds again and
 * again. Two numbers below 1e21 (where the library's toString + numeric collation is numeric
 * order) are compared as numbers; anything else goes through the same collation.
 */
function compareGem(a: GemVersion, b: GemVersion): number {
  if (a.text === b.text) return 0;
  const left = a.segments;
  const right = b.segments;
  const limit = Math.max(left.length, right.length);
  for (let i = 0; i < limit; i++) {
    const l = left[i] || 0;
    const r = right[i] || 0;
    if (l === r) continue;
    const leftString = typeof l === 'string';
    const rightString = typeof r === 'string';
    if (leftString && !rightString) return -1;
    if (!leftString && rightString) return 1;
    if (!leftString && !rightString && (l as number) < 1e21 && (r as number) < 1e21) return (l as number) < (r as number) ? -1 : 1;
    return numericCollator.compare(l.toString(), r.toString());
  }
  return 0;
}

export const GEM: VersionOrder = orderOf('rubygems', parseGem, compareGem);
