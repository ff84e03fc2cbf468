/**
 * RubyGems: Gem::Version (`1.0.a` < `1.0`, segments compared numerically or lexically). What is a
 * version, and how Gem::Version rewrites it (`-` read as `.pre.`), is `@renovatebot/ruby-semver`'s;
 * the order is Gem::Version#<=> written here, over segments worked out once per version: the
 * library reads numbers as JS numbers (two segments differing past 2^53 came out equal, where
 * Ruby compares exact Integers) and compares letter segments with a locale collator (`RC` after
 * `beta`, where Ruby's String#<=> puts every upper-case letter first: `1.0.RC1` < `1.0.beta1`).
 */
import { Version } from '@renovatebot/ruby-semver/dist/ruby/version.js';
import { orderOf, type VersionOrder } from './scheme.ts';

type Segment = bigint | string;

/** A version as Gem::Version holds it, with its canonical segments. */
interface GemVersion {
  text: string;
  segments: Segment[];
}

/** Trailing zeros dropped, as Gem::Version#canonical_segments drops them from each part. */
function withoutTrailingZeros(segments: Segment[]): Segment[] {
  let end = segments.length;
  while (end > 0 && segments[end - 1] === 0n) end--;
  return segments.slice(0, end);
}

function parseGem(v: string): GemVersion | null {
  if (!Version.isCorrect(v)) return null;
  // The string Gem::Version keeps (stripped, `-` as `.pre.`), scanned as Gem::Version#_segments scans it.
  const text = Version.create(v)!.version();
  const all: Segment[] = (text.match(/[0-9]+|[a-z]+/gi) ?? []).map((s) => (s.charCodeAt(0) <= 57 ? BigInt(s) : s));
  // canonical_segments: the numeric release and the part from the first letters on, each without trailing zeros.
  const firstString = all.findIndex((s) => typeof s === 'string');
  const release = firstString < 0 ? all : all.slice(0, firstString);
  const prerelease = firstString < 0 ? [] : all.slice(firstString);
  return { text, segments: [...withoutTrailingZeros(release), ...withoutTrailingZeros(prerelease)] };
}

/** Gem::Version#<=>: a missing segment is 0, letters before numbers, then each by its own order. */
function compareGem(a: GemVersion, b: GemVersion): number {
  if (a.text === b.text) return 0;
  const limit = Math.max(a.segments.length, b.segments.length);
  for (let i = 0; i < limit; i++) {
    const l = a.segments[i] ?? 0n;
    const r = b.segments[i] ?? 0n;
    if (l === r) continue;
    if (typeof l === 'string' && typeof r !== 'string') return -1;
    if (typeof l !== 'string' && typeof r === 'string') return 1;
    // Two Integers, or two ASCII letter runs (String#<=>: byte order).
    return l < r ? -1 : 1;
  }
  return 0;
}

export const GEM: VersionOrder = orderOf('rubygems', parseGem, compareGem);
