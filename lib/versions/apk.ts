/**
 * Alpine (and other apk distributions): apk-tools' version order, a port of its tokenizer in
 * `version.c`: numbers separated by dots (a component with leading zeros compares as a
 * fraction), one optional letter, suffixes `_alpha` < `_beta` < `_pre` < `_rc` < (none) <
 * `_cvs` < `_svn` < `_git` < `_hg` < `_p`, each with an optional number, a `~hash` commit, then
 * `-rN`. Quirks of apk are kept on purpose (e.g. `1.0` < `1.0_alpha`, seen in real apk).
 */
import { orderOf, type VersionOrder } from './scheme.ts';

const INVALID = -1;
const DIGIT_OR_ZERO = 0;
const DIGIT = 1;
const LETTER = 2;
const SUFFIX = 3;
const SUFFIX_NO = 4;
const REVISION_NO = 5;
const COMMIT_HASH = 6;
const END = 7;

const PRE_SUFFIXES = ['alpha', 'beta', 'pre', 'rc'];
const POST_SUFFIXES = ['cvs', 'svn', 'git', 'hg', 'p'];

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isLower = (c: string | undefined) => c !== undefined && c >= 'a' && c <= 'z';

class Cursor {
  type = DIGIT;
  pos = 0;
  /** The digits of the last token when it was a run of digits (else null): see apkCompare. */
  digits: string | null = null;
  constructor(readonly s: string) {}

  private nextType(): void {
    const s = this.s;
    let n = INVALID;
    const c = s[this.pos];
    if (this.pos >= s.length) n = END;
    else if ((this.type === DIGIT || this.type === DIGIT_OR_ZERO) && isLower(c)) n = LETTER;
    else if (this.type === LETTER && isDigit(c)) n = DIGIT;
    else if (this.type === SUFFIX && isDigit(c)) n = SUFFIX_NO;
    else {
      if (c === '.') n = DIGIT_OR_ZERO;
      else if (c === '_') n = SUFFIX;
      else if (c === '-' && s[this.pos + 1] === 'r') {
        n = REVISION_NO;
        this.pos++;
      } else if (c === '~') n = COMMIT_HASH;
      this.pos++;
    }
    if (n < this.type) {
      if (!((n === DIGIT_OR_ZERO && this.type === DIGIT) || (n === SUFFIX && this.type === SUFFIX_NO) || (n === DIGIT && this.type === LETTER))) n = INVALID;
    }
    this.type = n;
  }

  /** The value of the token at the cursor; moves to the next token and sets its type. */
  token(): number {
    const s = this.s;
    let v = 0;
    let i = this.pos;
    let nt = INVALID;
    this.digits = null;
    if (this.type === DIGIT_OR_ZERO && s[i] === '0') {
      // Leading zeros: the count of zeros, negated, so 1.02 < 1.2 (apk's fractional reading).
      while (s[i] === '0') i++;
      nt = DIGIT;
      v = -(i - this.pos);
    } else if (this.type === DIGIT_OR_ZERO || this.type === DIGIT || this.type === SUFFIX_NO || this.type === REVISION_NO) {
      // An empty run is 0 (apk reads `1.0-r1` as 1, 0 zeros, an empty digit run, then -r1).
      const from = i;
      while (isDigit(s[i])) v = v * 10 + (s.charCodeAt(i++) - 48);
      this.digits = s.slice(from, i);
    } else if (this.type === LETTER) {
      v = s.charCodeAt(i++);
    } else if (this.type === SUFFIX) {
      const rest = s.slice(i);
      const pre = PRE_SUFFIXES.findIndex((x) => rest.startsWith(x));
      const post = pre < 0 ? POST_SUFFIXES.findIndex((x) => rest.startsWith(x)) : -1;
      if (pre >= 0) {
        i += PRE_SUFFIXES[pre]!.length;
        v = pre - PRE_SUFFIXES.length;
      } else if (post >= 0) {
        i += POST_SUFFIXES[post]!.length;
        v = post;
      } else {
        this.type = INVALID;
        return -1;
      }
    } else if (this.type === COMMIT_HASH) {
      while (i < s.length && /[0-9a-f]/.test(s[i]!)) i++;
      v = 0;
    } else {
      this.type = INVALID;
      return -1;
    }
    this.pos = i;
    if (this.pos >= s.length) this.type = END;
    else if (nt !== INVALID) this.type = nt;
    else this.nextType();
    return v;
  }
}

export function apkValid(v: string): boolean {
  if (v === '' || !isDigit(v[0])) return false;
  const c = new Cursor(v);
  while (c.type !== END && c.type !== INVALID) c.token();
  return c.type === END;
}

/** Two runs of decimal digits by the numbers they write (leading zeros do not count). */
function compareDigitRuns(a: string, b: string): number {
  const x = a.replace(/^0+/, '');
  const y = b.replace(/^0+/, '');
  if (x.length !== y.length) return x.length < y.length ? -1 : 1;
  return x < y ? -1 : x > y ? 1 : 0;
}

export function apkCompare(a: string, b: string): number {
  const ca = new Cursor(a);
  const cb = new Cursor(b);
  let av = 0;
  let bv = 0;
  while (ca.type === cb.type && ca.type !== END && ca.type !== INVALID && av === bv) {
    av = ca.token();
    bv = cb.token();
    // Past 2^53 a number is not exact (two different runs came out equal): long runs of digits
    // compare by their digits, as the numbers they write.
    if (ca.digits !== null && cb.digits !== null && Math.max(ca.digits.length, cb.digits.length) > 15) {
      const order = compareDigitRuns(ca.digits, cb.digits);
      if (order !== 0) return order;
      av = bv = 0;
    }
  }
  if (av < bv) return -1;
  if (av > bv) return 1;
  if (ca.type === cb.type) return 0;
  // Same leading parts: the longer version is greater, unless what follows is a pre-release suffix.
  if (ca.type === SUFFIX && ca.token() < 0) return -1;
  if (cb.type === SUFFIX && cb.token() < 0) return 1;
  if (ca.type > cb.type) return -1;
  if (cb.type > ca.type) return 1;
  return 0;
}

export const APK: VersionOrder = orderOf('apk', (v) => (apkValid(v) ? v : null), apkCompare);
