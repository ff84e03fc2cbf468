/**
 * `product` rows from CVE-5-style `affected[]` entries: the CNA/ADP containers of CVE 5
 * records and NVD's top-level `affected[].affectedData[]`, which copies the same shape.
 *
 * One row per version range whose status is `affected`; an entry that is affected only by its
 * `defaultStatus` (or names no versions and no default at all) gives one row without bounds.
 * Entries that say nothing is affected (every version `unaffected`/`unknown`, default not
 * `affected`) give no row: the table lists what a CVE affects. `n/a` vendors or products fall
 * back to the entry's first readable CPE, else the entry is skipped.
 *
 * Each CPE of the entry is also a vendor/product of its own (`cpe:/a:redhat:satellite:6.16::el8`
 * under the CNA's "Red Hat" / "Red Hat Satellite 6.16 for RHEL 8"): the names a CPE dictionary,
 * a scanner and `/cves/match?vendor=redhat&product=satellite` use. A package named only by its
 * purl (`pkg:pypi/mooncake-transfer-engine`, no `packageName`) takes the purl's name, and the
 * purl's OSV ecosystem is kept beside it.
 */
import type { ProductRow, StageSink } from '../stage/tables.ts';
import { stringOrNull } from './common.ts';
import { objects, stringList } from './cve5-json.ts';
import { PackageURL } from 'packageurl-js';
import { parsePurl } from '../../lib/packages/purl.ts';
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

/**
 * The package a purl names: its OSV ecosystem and name where the type has one (parsePurl), else
 * the purl's own `namespace/name` with no ecosystem; null for text that is no purl.
 */
function purlPackage(purl: string | null): { ecosystem: string | null; name: string } | null {
  if (purl === null) return null;
  try {
    const { ecosystem, name } = parsePurl(purl);
    return { ecosystem, name };
  } catch {
    try {
      const p = PackageURL.fromString(purl.trim());
      return { ecosystem: null, name: p.namespace ? `${p.namespace}/${p.name}` : p.name };
    } catch {
      return null;
    }
  }
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
    const purl = stringOrNull(entry.packageURL);
    const fromPurl = purlPackage(purl);
    const packageName = usableName(entry.packageName) ?? fromPurl?.name ?? null;
    const common = {
      cve_id: cveId,
      feed,
      package_name: packageName,
      collection_url: stringOrNull(entry.collectionURL),
      purl,
      ecosystem: fromPurl?.ecosystem ?? null,
    };
    // The entry's names, then each CPE's (the first CPE rides on the names' row, as before).
    const names: { vendor: string; product: string; cpe: string | null }[] = [{ vendor: vendor.toLowerCase(), product: product.toLowerCase(), cpe: cpes[0] ?? null }];
    for (const cpe of cpes) {
      const named = parseCpe(cpe);
      if (named !== null && !(cpe === cpes[0] && named.vendor === names[0]!.vendor && named.product === names[0]!.product)) {
        names.push({ vendor: named.vendor, product: named.product, cpe });
      }
    }
    const versions = objects(entry.versions);
    const affected = versions.filter((v) => isAffected(v.status));
    const affectedByDefault = isAffected(entry.defaultStatus) || (versions.length === 0 && entry.defaultStatus === undefined);
    const ranges = affected.length > 0 ? affected.map(boundsOf) : affectedByDefault ? [NO_BOUNDS] : [];
    for (const name of names) {
      for (const bounds of ranges) sink.emit('product', { ...common, ...name, ...bounds, file } satisfies ProductRow);
    }
  }
}
