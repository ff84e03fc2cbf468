/**
 * `product` rows from CVE-5-style `affected[]` entries: the CNA/ADP containers of CVE 5
 * records and NVD's top-level `affected[].affectedData[]`, which copies the same shape.
 *
 * One row per version range whose status is `affected`; an entry that is affected only by its
 * `defaultStatus` (or names no versions and no default at all) gives one row without bounds.
 * Entries that say nothing is affected (every version `unaffected`/`unknown`, default not
 * `affected`) give no row: the table lists what a CVE affects. `n/a` vendors or products fall
 * back to the entry's first readable CPE, else the entry is skipped.
 */
import type { ProductRow, StageSink } from '../stage/tables.ts';
import { stringOrNull } from './common.ts';
import { objects, stringList } from './cve5-json.ts';
import { parseCpe } from './nvd-cpe.ts';

/** A usable name: a non-empty string other than `n/a` (any case). */
function usableName(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const v = value.trim();
  return v === '' || v.toLowerCase() === 'n/a' ? null : v;
}

function isAffected(status: unknown): boolean {
  return typeof status === 'string' && status.toLowerCase() === 'affected';
}

interface Bounds {
  version_start_including: string | null;
  version_start_excluding: string | null;
  version_end_including: string | null;
  version_end_excluding: string | null;
}

const NO_BOUNDS: Bounds = {
  version_start_including: null,
  version_start_excluding: null,
  version_end_including: null,
  version_end_excluding: null,
};

/**
 * `{version, lessThan?, lessThanOrEqual?}` → bounds as published. A bare version is one exact
 * version: it is both the start and the end (inclusive).
 */
function boundsOf(v: Record<string, unknown>): Bounds {
  const start = usableName(v.version);
  const lessThan = stringOrNull(v.lessThan);
  const lessThanOrEqual = stringOrNull(v.lessThanOrEqual);
  const exact = lessThan === null && lessThanOrEqual === null;
  return {
    version_start_including: start,
    version_start_excluding: null,
    version_end_including: exact ? start : lessThanOrEqual,
    version_end_excluding: lessThan,
  };
}

export function emitAffectedProducts(entries: unknown, cveId: string, feed: string, file: string, sink: StageSink): void {
  for (const entry of objects(entries)) {
    const cpes = stringList(entry.cpes);
    let vendor = usableName(entry.vendor);
    let product = usableName(entry.product);
    if (vendor === null || product === null) {
      const named = cpes.map(parseCpe).find((c) => c !== null);
      if (!named) continue;
      vendor = named.vendor;
      product = named.product;
    }
    const base = {
      cve_id: cveId,
      feed,
      vendor: vendor.toLowerCase(),
      product: product.toLowerCase(),
      cpe: cpes[0] ?? null,
      package_name: stringOrNull(entry.packageName),
      collection_url: stringOrNull(entry.collectionURL),
      purl: stringOrNull(entry.packageURL),
    };
    const versions = objects(entry.versions);
    let emitted = false;
    for (const v of versions) {
      if (!isAffected(v.status)) continue;
      sink.emit('product', { ...base, ...boundsOf(v), file } satisfies ProductRow);
      emitted = true;
    }
    const affectedByDefault = isAffected(entry.defaultStatus) || (versions.length === 0 && entry.defaultStatus === undefined);
    if (!emitted && affectedByDefault) sink.emit('product', { ...base, ...NO_BOUNDS, file } satisfies ProductRow);
  }
}
