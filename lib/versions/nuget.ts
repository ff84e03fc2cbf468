/**
 * NuGet: NuGet's SemVer 2.0 reading (docs "Package versioning"): up to four numeric release
 * parts (`1.0` = `1.0.0` = `1.0.0.0`, a fourth "revision" part allowed), a pre-release label
 * compared like SemVer but case-insensitively, build metadata ignored.
 */
import { cmp, orderOf, type VersionOrder } from './scheme.ts';

interface NuGetVersion {
  release: bigint[];
  pre: string[];
}

const NUGET = /^v?(\d+(?:\.\d+){0,3})(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

export function parseNuGet(text: string): NuGetVersion | null {
  const m = NUGET.exec(text.trim());
  if (!m) return null;
  const release = m[1]!.split('.').map((p) => BigInt(p));
  while (release.length < 4) release.push(0n);
  return { release, pre: m[2] ? m[2].toLowerCase().split('.') : [] };
}

function comparePre(a: string[], b: string[]): number {
  if (a.length === 0 || b.length === 0) return cmp(b.length, a.length); // a release beats its pre-releases
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    const r = xn && yn ? cmp(BigInt(x), BigInt(y)) : xn ? -1 : yn ? 1 : cmp(x, y);
    if (r !== 0) return r;
  }
  return 0;
}

export const NUGET_ORDER: VersionOrder = orderOf('nuget', parseNuGet, (a, b) => {
  for (let i = 0; i < 4; i++) {
    const r = cmp(a.release[i]!, b.release[i]!);
    if (r !== 0) return r;
  }
  return comparePre(a.pre, b.pre);
});
