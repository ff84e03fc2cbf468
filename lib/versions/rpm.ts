/**
 * RPM-based distributions (Red Hat, Rocky Linux, AlmaLinux, SUSE, openSUSE, …): rpm's
 * `rpmvercmp` (rpm 4.15+, with `~` sorting before everything and `^` after the version it
 * follows but before any longer one) over `[epoch:]version[-release]`, epoch compared first as
 * a number (missing = 0), then version, then release.
 */
import { cmp, orderOf, type VersionOrder } from './scheme.ts';

interface Evr {
  epoch: number;
  version: string;
  release: string;
}

export function parseEvr(text: string): Evr | null {
  const v = text.trim();
  if (v === '' || /\s/.test(v)) return null;
  let epoch = 0;
  let rest = v;
  const m = /^(\d+):(.*)$/.exec(v);
  if (m) {
    epoch = Number(m[1]);
    rest = m[2]!;
  }
  if (rest.includes(':')) return null;
  const dash = rest.lastIndexOf('-');
  const version = dash >= 0 ? rest.slice(0, dash) : rest;
  const release = dash >= 0 ? rest.slice(dash + 1) : '';
  if (version === '' || (dash >= 0 && release === '')) return null;
  if (!/[A-Za-z0-9]/.test(version)) return null;
  return { epoch, version, release };
}

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isAlpha = (c: string | undefined) => c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
const isAlnum = (c: string | undefined) => isDigit(c) || isAlpha(c);

/** rpm's `rpmvercmp`. */
export function rpmvercmp(a: string, b: string): number {
  if (a === b) return 0;
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    while (i < a.length && !isAlnum(a[i]) && a[i] !== '~' && a[i] !== '^') i++;
    while (j < b.length && !isAlnum(b[j]) && b[j] !== '~' && b[j] !== '^') j++;
    if (a[i] === '~' || b[j] === '~') {
      if (a[i] !== '~') return 1;
      if (b[j] !== '~') return -1;
      i++;
      j++;
      continue;
    }
    if (a[i] === '^' || b[j] === '^') {
      if (i >= a.length) return -1;
      if (j >= b.length) return 1;
      if (a[i] !== '^') return 1;
      if (b[j] !== '^') return -1;
      i++;
      j++;
      continue;
    }
    if (!(i < a.length && j < b.length)) break;
    let x = i;
    let y = j;
    const numeric = isDigit(a[x]);
    const same = numeric ? isDigit : isAlpha;
    while (x < a.length && same(a[x])) x++;
    while (y < b.length && same(b[y])) y++;
    if (y === j) return numeric ? 1 : -1; // numeric segments beat alphabetic ones
    let sa = a.slice(i, x);
    let sb = b.slice(j, y);
    if (numeric) {
      sa = sa.replace(/^0+/, '');
      sb = sb.replace(/^0+/, '');
      if (sa.length !== sb.length) return sa.length > sb.length ? 1 : -1;
    }
    const c = cmp(sa, sb);
    if (c !== 0) return c;
    i = x;
    j = y;
  }
  if (i >= a.length && j >= b.length) return 0;
  return i >= a.length ? -1 : 1;
}

export const RPM: VersionOrder = orderOf('rpm', parseEvr, (a, b) => cmp(a.epoch, b.epoch) || rpmvercmp(a.version, b.version) || rpmvercmp(a.release, b.release));
