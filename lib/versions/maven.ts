/**
 * Maven: a port of Maven's `ComparableVersion` (maven-artifact 3.9, the order of "Version Order
 * Specification" in the POM reference, which OSV names for Maven): `.`/`-` and digit/letter
 * transitions split items; a `-` (or a letter/digit switch) opens a sub-list; trailing "null"
 * items (0, "", ga/final/release) are dropped; qualifiers order alpha < beta < milestone < rc =
 * cr < snapshot < "" = ga = final = release < sp < any other (lexically); numbers beat strings
 * and lists. Any string is a Maven version to ComparableVersion; refused are an empty one and
 * what Maven's model validator refuses (NOT_A_VERSION).
 */
import { cmp, orderOf, type VersionOrder } from './scheme.ts';

type Item = { kind: 'int'; value: bigint } | { kind: 'string'; value: string } | { kind: 'list'; items: Item[] };

const QUALIFIERS = ['alpha', 'beta', 'milestone', 'rc', 'snapshot', '', 'sp'];
const ALIASES: Record<string, string> = { ga: '', final: '', release: '', cr: 'rc' };
const RELEASE_INDEX = String(QUALIFIERS.indexOf(''));

function stringItem(value: string, followedByDigit: boolean): Item {
  if (followedByDigit && value.length === 1) {
    value = ({ a: 'alpha', b: 'beta', m: 'milestone' } as Record<string, string>)[value] ?? value;
  }
  return { kind: 'string', value: ALIASES[value] ?? value };
}

function comparableQualifier(q: string): string {
  const i = QUALIFIERS.indexOf(q);
  return i === -1 ? `${QUALIFIERS.length}-${q}` : String(i);
}

function parseItem(isDigit: boolean, text: string): Item {
  return isDigit ? { kind: 'int', value: BigInt(text) } : stringItem(text, false);
}

function isNull(item: Item): boolean {
  if (item.kind === 'int') return item.value === 0n;
  if (item.kind === 'string') return item.value === '';
  return item.items.length === 0;
}

function normalize(list: Item[]): void {
  for (let i = list.length - 1; i >= 0; i--) {
    const last = list[i]!;
    if (isNull(last)) list.splice(i, 1);
    else if (last.kind !== 'list') break;
  }
}

const isAsciiDigit = (c: string) => c >= '0' && c <= '9';

export function parseMaven(version: string): Item {
  const v = version.toLowerCase();
  const root: Item[] = [];
  let list = root;
  const stack: Item[][] = [root];
  let isDigit = false;
  let start = 0;
  const openList = () => {
    const next: Item[] = [];
    list.push({ kind: 'list', items: next });
    list = next;
    stack.push(next);
  };
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    if (c === '.') {
      list.push(i === start ? { kind: 'int', value: 0n } : parseItem(isDigit, v.slice(start, i)));
      start = i + 1;
    } else if (c === '-') {
      list.push(i === start ? { kind: 'int', value: 0n } : parseItem(isDigit, v.slice(start, i)));
      start = i + 1;
      openList();
    } else if (isAsciiDigit(c)) {
      if (!isDigit && i > start) {
        // 1.0.0.X1 < 1.0.0-X2: a qualifier after a dot is read as after a hyphen.
        if (list.length > 0) openList();
        list.push(stringItem(v.slice(start, i), true));
        start = i;
        openList();
      }
      isDigit = true;
    } else {
      if (isDigit && i > start) {
        list.push(parseItem(true, v.slice(start, i)));
        start = i;
        openList();
      }
      isDigit = false;
    }
  }
  if (v.length > start) {
    if (!isDigit && list.length > 0) openList();
    list.push(parseItem(isDigit, v.slice(start)));
  }
  while (stack.length > 0) normalize(stack.pop()!);
  return { kind: 'list', items: root };
}

/** A list being compared: the other side's items (null: against nothing), the next index, and the sign of its results. */
interface ListFrame {
  a: Item[];
  b: Item[] | null;
  next: number;
  sign: 1 | -1;
}

/**
 * One step of the comparison: the result of two items that are not both lists (signed), or
 * null once the pair of lists (or a list against nothing) is pushed to be compared item by item.
 */
function compareStep(a: Item | null, b: Item | null, sign: 1 | -1, lists: ListFrame[]): number | null {
  if (a === null) return b === null ? 0 : compareStep(b, null, sign === 1 ? -1 : 1, lists);
  if (a.kind === 'int') {
    if (b === null) return sign * (a.value === 0n ? 0 : 1);
    return sign * (b.kind === 'int' ? cmp(a.value, b.value) : 1);
  }
  if (a.kind === 'string') {
    if (b === null) return sign * cmp(comparableQualifier(a.value), RELEASE_INDEX);
    if (b.kind === 'int') return -sign;
    if (b.kind === 'string') return sign * cmp(comparableQualifier(a.value), comparableQualifier(b.value));
    return -sign;
  }
  // A list against "nothing": every item against nothing, not only the first (MNG-6964):
  // 1-0.1 > 1, as 1-0 = 1.
  if (b === null) {
    lists.push({ a: a.items, b: null, next: 0, sign });
    return null;
  }
  if (b.kind === 'int') return -sign;
  if (b.kind === 'string') return sign;
  lists.push({ a: a.items, b: b.items, next: 0, sign });
  return null;
}

/**
 * ComparableVersion's order, with a stack of the lists being compared rather than recursion:
 * each digit/letter switch and each `-` opens a sub-list, so `1a` repeated 4,000 times nests
 * 8,000 deep, and compared recursively it overflowed the call stack (a 500 for one purl).
 */
function compareItems(a: Item | null, b: Item | null): number {
  const lists: ListFrame[] = [];
  const first = compareStep(a, b, 1, lists);
  if (first !== null) return first || 0;
  while (lists.length > 0) {
    const top = lists.at(-1)!;
    const length = top.b === null ? top.a.length : Math.max(top.a.length, top.b.length);
    if (top.next >= length) {
      lists.pop(); // equal: the enclosing list goes on with its next item
      continue;
    }
    const i = top.next++;
    const r = compareStep(top.a[i] ?? null, top.b === null ? null : (top.b[i] ?? null), top.sign, lists);
    if (r !== null && r !== 0) return r;
  }
  return 0;
}

/**
 * What Maven's model validator refuses as a version (DefaultModelValidator: an expression, or one
 * of the characters a file name cannot hold, `\/:"<>|?*`). ComparableVersion orders any string,
 * but an SBOM written from a pom.xml whose properties were not resolved names
 * `jackson-databind@${jackson.version}`: ordered as a qualifier it was below every release,
 * "affected" by every advisory from 0 with an upgrade to its first fix, and outside every range
 * that starts above 0 — a guess either way, where the version is simply unknown.
 */
const NOT_A_VERSION = /\$\{|[\\/:"<>|?*]/;

export const MAVEN: VersionOrder = orderOf('maven', (v) => (v.trim() === '' || NOT_A_VERSION.test(v) ? null : parseMaven(v.trim())), compareItems);
