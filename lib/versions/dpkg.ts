/**
 * Debian and Ubuntu: dpkg's version order (deb-version(7), Debian Policy §5.6.12):
 * `[epoch:]upstream[-revision]`; the epoch compares as a number, then upstream and revision by
 * `verrevcmp`: alternating runs of non-digits (letters sort before non-letters, `~` before
 * everything, even the end of the string) and digit runs compared as numbers.
 */
import { cmp, orderOf, type VersionOrder } from './scheme.ts';

interface DebVersion {
  epoch: number;
  upstream: string;
  revision: string;
}

const UPSTREAM = /^[0-9][A-Za-z0-9.+~-]*$/;
const REVISION = /^[A-Za-z0-9.+~]+$/;

export function parseDpkg(text: string): DebVersion | null {
  const v = text.trim();
  if (v === '' || /\s/.test(v)) return null;
  let epoch = 0;
  let rest = v;
  const colon = v.indexOf(':');
  if (colon >= 0) {
    const e = v.slice(0, colon);
    if (!/^\d+$/.test(e)) return null;
    epoch = Number(e);
    rest = v.slice(colon + 1);
  }
  const dash = rest.lastIndexOf('-');
  const upstream = dash >= 0 ? rest.slice(0, dash) : rest;
  const revision = dash >= 0 ? rest.slice(dash + 1) : '';
  if (!UPSTREAM.test(upstream)) return null;
  if (dash >= 0 && !REVISION.test(revision)) return null;
  return { epoch, upstream, revision };
}

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}

/** dpkg's `order()`: `~` lowest, the end 0, letters by code, anything else after letters. */
function order(c: string): number {
  if (c === '') return 0;
  if (c === '~') return -1;
  if (isDigit(c)) return 0;
  if (/[A-Za-z]/.test(c)) return c.charCodeAt(0);
  return c.charCodeAt(0) + 256;
}

/** dpkg's `verrevcmp`. */
export function verrevcmp(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    let firstDiff = 0;
    while ((i < a.length && !isDigit(a[i]!)) || (j < b.length && !isDigit(b[j]!))) {
      const ac = order(a.charAt(i));
      const bc = order(b.charAt(j));
      if (ac !== bc) return ac - bc;
      i++;
      j++;
    }
    while (a[i] === '0') i++;
    while (b[j] === '0') j++;
    while (i < a.length && j < b.length && isDigit(a[i]!) && isDigit(b[j]!)) {
      if (!firstDiff) firstDiff = a.charCodeAt(i) - b.charCodeAt(j);
      i++;
      j++;
    }
    if (i < a.length && isDigit(a[i]!)) return 1;
    if (j < b.length && isDigit(b[j]!)) return -1;
    if (firstDiff) return firstDiff;
  }
  return 0;
}

export const DPKG: VersionOrder = orderOf('dpkg', parseDpkg, (a, b) => cmp(a.epoch, b.epoch) || verrevcmp(a.upstream, b.upstream) || verrevcmp(a.revision, b.revision));
