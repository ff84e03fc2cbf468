/**
 * Affected version branches of a CVE: each branch is introduced at some version and either
 * fixed in a later one or (no fix yet) last known affected at one. The same branches feed NVD
 * CPE ranges, CVE 5 `affected.versions`, GHSA ranges and vendor advisories, so every source
 * agrees on what is fixed where.
 */
import type { Product } from './products.ts';
import type { Rng } from './random.ts';

export interface Branch {
  /** `0` = from the first release. */
  introduced: string;
  fixed: string | null;
  /** Set when there is no fix: the last version known to be affected (inclusive). */
  lastAffected: string | null;
}

const KERNEL_SERIES = ['4.19', '5.4', '5.10', '5.15', '6.1', '6.6', '6.12'];

/** 1–3 branches (several branches mean several fixed release lines, as GHSA and NVD show). */
export function makeBranches(rng: Rng, product: Product, year: number): Branch[] {
  const count = rng.weighted<number>([[1, 70], [2, 20], [3, 10]]);
  const noFix = rng.chance(0.08);
  const out: Branch[] = [];
  if (product.versioning === 'kernel') {
    const start = Math.max(0, Math.min(KERNEL_SERIES.length - count, Math.floor((year - 2018) / 1.5)));
    for (let j = 0; j < count; j++) {
      const series = KERNEL_SERIES[start + j]!;
      out.push({ introduced: series, fixed: `${series}.${rng.int(10, 320)}`, lastAffected: null });
    }
    return out;
  }
  if (product.versioning === 'build') {
    const major = rng.pick(['10.0', '11.0', '16.0', '120.0', '124.0']);
    const build = rng.int(10_000, 26_100);
    out.push({ introduced: `${major}.0`, fixed: `${major}.${build}.${rng.int(100, 6000)}`, lastAffected: null });
    return out;
  }
  let major = rng.int(0, Math.max(1, Math.min(12, year - 2005)));
  for (let j = 0; j < count; j++, major += rng.int(1, 2)) {
    const minor = rng.int(0, 18);
    const patch = rng.int(0, 25);
    const introduced = j === 0 && rng.chance(0.5) ? '0' : `${major}.0.0`;
    if (noFix && j === count - 1) out.push({ introduced, fixed: null, lastAffected: `${major}.${minor}.${patch}` });
    else out.push({ introduced, fixed: `${major}.${minor}.${patch + 1}`, lastAffected: null });
  }
  return out;
}

/** The highest affected version named by the branches ("up to X"). */
export function lastAffectedOf(branches: Branch[]): string {
  const last = branches[branches.length - 1]!;
  if (last.lastAffected) return last.lastAffected;
  const fixed = last.fixed ?? '1.0.1';
  const parts = fixed.split('.');
  const tail = Number(parts[parts.length - 1]);
  parts[parts.length - 1] = String(Math.max(0, tail - 1));
  return parts.join('.');
}
