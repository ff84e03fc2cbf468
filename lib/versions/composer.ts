/**
 * Packagist: Composer's order — `VersionParser::normalize` (a `v` prefix and build metadata
 * dropped, four numeric parts, stability suffixes alpha/a, beta/b, RC, patch/pl/p, `-dev`),
 * then PHP's `version_compare` over the normalised strings (as Composer's Comparator does).
 * Branch names (`dev-main`) have no order and are refused.
 */
import { cmp, orderOf, type VersionOrder } from './scheme.ts';

/*
 * Composer's VersionParser patterns. Its stability number is `((?:[.-]?\d+)*+)`, possessive in
 * PHP; JavaScript has no possessive quantifier, and written `((?:[.-]?\d+)*)` a run of digits
 * could be cut into groups in 2^n ways, all tried before a refusal: `1.0rc` then 30 digits and
 * a `!` held the event loop for minutes (one request stopped a replica). The same strings are
 * matched with only a separator starting a new group: a run of digits is one group, tried once.
 */
const CLASSICAL = /^v?(\d{1,5})(\.\d+)?(\.\d+)?(\.\d+)?[._-]?(?:(stable|beta|b|rc|alpha|a|patch|pl|p)([.-]?\d+(?:[.-]\d+)*)?)?([.-]?dev)?$/i;
const DATE = /^v?(\d{4}(?:[.:-]?\d{2}){1,6}(?:[.:-]?\d{1,3}){0,2})[._-]?(?:(stable|beta|b|rc|alpha|a|patch|pl|p)([.-]?\d+(?:[.-]\d+)*)?)?([.-]?dev)?$/i;

function expandStability(s: string): string {
  const l = s.toLowerCase();
  return l === 'a' ? 'alpha' : l === 'b' ? 'beta' : l === 'p' || l === 'pl' ? 'patch' : l === 'rc' ? 'RC' : l;
}

/** Composer's normalised form (`1.2.0.0-beta1`), or null when Composer would refuse it. */
export function normalizeComposer(text: string): string | null {
  let v = text.trim();
  const build = /^([^,\s+]+)\+\S+$/.exec(v);
  if (build) v = build[1]!;
  let m = CLASSICAL.exec(v);
  let base: string;
  let stability: string | undefined;
  let number: string | undefined;
  let dev: string | undefined;
  if (m) {
    base = [m[1], m[2] ?? '.0', m[3] ?? '.0', m[4] ?? '.0'].join('');
    [stability, number, dev] = [m[5], m[6], m[7]];
  } else {
    m = DATE.exec(v);
    if (!m) return null;
    base = m[1]!.replace(/\D/g, '.');
    [stability, number, dev] = [m[2], m[3], m[4]];
  }
  if (stability && stability.toLowerCase() !== 'stable') base += `-${expandStability(stability)}${(number ?? '').replace(/^[.-]/, '')}`;
  if (dev) base += '-dev';
  return base;
}

/** PHP's special forms: any other word < dev < alpha = a < beta = b < RC = rc < a number < pl = p. */
const SPECIAL: [string, number][] = [['dev', 0], ['alpha', 1], ['a', 1], ['beta', 2], ['b', 2], ['RC', 3], ['rc', 3], ['#', 4], ['pl', 5], ['p', 5]];

function specialForm(s: string): number {
  for (const [name, order] of SPECIAL) if (s.startsWith(name)) return order;
  return -6;
}

/** PHP's canonical form: `-_+` become `.`, and a `.` between every digit/non-digit switch. */
function canonical(v: string): string[] {
  let out = '';
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    const sep = c === '-' || c === '_' || c === '+' || c === '.';
    if (sep) {
      if (out !== '' && !out.endsWith('.')) out += '.';
      continue;
    }
    const prev = out[out.length - 1];
    if (prev !== undefined && prev !== '.' && /\d/.test(prev) !== /\d/.test(c)) out += '.';
    out += c;
  }
  return out.split('.').filter((p) => p !== '');
}

const isNum = (s: string) => /^\d/.test(s);

function comparePart(a: string, b: string): number {
  if (isNum(a) && isNum(b)) return cmp(BigInt(a.match(/^\d+/)![0]), BigInt(b.match(/^\d+/)![0]));
  if (!isNum(a) && !isNum(b)) return cmp(specialForm(a), specialForm(b));
  return isNum(a) ? cmp(specialForm('#'), specialForm(b)) : cmp(specialForm(a), specialForm('#'));
}

/** PHP's `version_compare`. */
export function phpVersionCompare(a: string, b: string): number {
  return compareCanonical(canonical(a), canonical(b));
}

/** `version_compare` over canonical forms (the order keeps them parsed: bounds are compared again and again). */
function compareCanonical(pa: string[], pb: string[]): number {
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const r = comparePart(pa[i]!, pb[i]!);
    if (r !== 0) return r;
  }
  if (pa.length > pb.length) return isNum(pa[pb.length]!) ? 1 : comparePart(pa[pb.length]!, '#');
  if (pb.length > pa.length) return isNum(pb[pa.length]!) ? -1 : comparePart('#', pb[pa.length]!);
  return 0;
}

export const COMPOSER: VersionOrder = orderOf(
  'composer',
  (v) => {
    const normalized = normalizeComposer(v);
    return normalized === null ? null : canonical(normalized);
  },
  compareCanonical,
);
