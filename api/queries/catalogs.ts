/**
 * Catalogues for browsing and for building filters (contract 4.11): CWEs with how many active
 * CVEs carry each, package ecosystems, and vendors with their product and CVE counts.
 *
 * Ecosystem and vendor counts aggregate a whole side table, so they are computed once per open
 * snapshot and kept beside its connection (a new snapshot comes with a new connection, so a hot
 * swap starts afresh and the old figures go with the old connection).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { requireTables, selectRows, shortTextSql, type SnapshotReader } from './support.ts';
import { canonicalEcosystem } from '../../lib/versions/ecosystems.ts';

export interface Paging {
  limit: number;
  offset: number;
}

export interface CweEntry {
  cwe_id: string;
  name: string | null;
  kind: string | null;
  abstraction: string | null;
  status: string | null;
  description: string | null;
  /** Active CVEs carrying this CWE. */
  cve_count: number;
}

export interface CwePage extends Paging {
  cwes: CweEntry[];
  total: number;
}

export interface EcosystemEntry {
  ecosystem: string;
  package_count: number;
  cve_count: number;
  /** Whether /packages answers this ecosystem (its versions have an order the service knows). */
  package_lookup: boolean;
}

export interface VendorEntry {
  /** Normalised key (lower case, spaces as `_`, as CPE spells it): what `/cves/match` takes. */
  vendor: string;
  /** The spelling most records use. */
  name: string;
  product_count: number;
  cve_count: number;
}

export interface VendorPage extends Paging {
  vendors: VendorEntry[];
  total: number;
}

/**
 * CWEs, most used first. `q` keeps entries whose id or name contains it (case-insensitive); an
 * exact id (`79` or `CWE-79`) comes first.
 */
export async function listCwes(reader: SnapshotReader, q: string | undefined, paging: Paging): Promise<CwePage> {
  requireTables(reader, 'cwes');
  const params: string[] = [];
  let where = '';
  let exactFirst = '';
  if (q !== undefined && q !== '') {
    params.push(q.toLowerCase());
    where = `WHERE contains(lower(cwe_id), $1) OR contains(lower(coalesce(name, '')), $1)`;
    exactFirst = `(lower(cwe_id) = $1 OR lower(cwe_id) = 'cwe-' || $1) DESC,`;
  }
  const [count] = await selectRows<{ total: number }>(reader, `SELECT count(*)::INTEGER AS total FROM cwes ${where}`, params);
  const cwes = await selectRows<CweEntry>(
    reader,
    `SELECT cwe_id, name, kind, abstraction, status, ${shortTextSql('description')} AS description, cve_count::INTEGER AS cve_count
     FROM cwes ${where}
     ORDER BY ${exactFirst} cve_count DESC, TRY_CAST(regexp_extract(cwe_id, '(\\d+)$', 1) AS INTEGER) NULLS LAST, cwe_id
     LIMIT ${paging.limit} OFFSET ${paging.offset}`,
    params,
  );
  return { cwes, total: count?.total ?? 0, ...paging };
}

const ecosystemCache = new WeakMap<DuckDBConnection, Promise<EcosystemEntry[]>>();
const vendorCache = new WeakMap<DuckDBConnection, Promise<VendorEntry[]>>();

/** Memoises one aggregate per connection; a failed computation is not kept. */
function cached<T>(cache: WeakMap<DuckDBConnection, Promise<T>>, connection: DuckDBConnection, compute: () => Promise<T>): Promise<T> {
  let pending = cache.get(connection);
  if (!pending) {
    pending = compute();
    cache.set(connection, pending);
    pending.catch(() => cache.delete(connection));
  }
  return pending;
}

/** Package ecosystems of affected packages of active CVEs, most CVEs first. */
export async function listEcosystems(reader: SnapshotReader): Promise<EcosystemEntry[]> {
  requireTables(reader, 'affected_packages');
  return cached(ecosystemCache, reader.connection, async () =>
    (await selectRows<Omit<EcosystemEntry, 'package_lookup'>>(
      reader,
      `SELECT ap.ecosystem, count(DISTINCT lower(ap.package_name))::INTEGER AS package_count,
              count(DISTINCT ap.cve_id)::INTEGER AS cve_count
       FROM affected_packages ap SEMI JOIN cves c ON c.cve_id = ap.cve_id AND c.status = 'active'
       WHERE ap.ecosystem IS NOT NULL
       GROUP BY ap.ecosystem
       ORDER BY cve_count DESC, ap.ecosystem`,
    )).map((row) => ({ ...row, package_lookup: canonicalEcosystem(row.ecosystem) !== null })),
  );
}

/** The normal form of a vendor name, as `products.vendor_key` spells it (sql/05_side_tables.sql). */
export function vendorKeyOf(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, '_');
}

/**
 * Vendors of affected products of active CVEs, most CVEs first; `q` is a prefix of the key. A
 * vendor's `name` is its spelling on the most of those rows, a tie going to the least spelling
 * (as products.vendor itself is chosen, sql/05_side_tables.sql): the same name in every build
 * and on every replica, where `mode()` left a tie to the aggregation's order.
 */
export async function listVendors(reader: SnapshotReader, q: string | undefined, paging: Paging): Promise<VendorPage> {
  requireTables(reader, 'products');
  const all = await cached(vendorCache, reader.connection, () =>
    selectRows<VendorEntry>(
      reader,
      `WITH active_products AS (
         SELECT p.vendor_key, p.vendor, p.product_key, p.cve_id
         FROM products p SEMI JOIN cves c ON c.cve_id = p.cve_id AND c.status = 'active'
       ),
       spellings AS (
         SELECT vendor_key, vendor, count(*) AS uses FROM active_products GROUP BY vendor_key, vendor
       ),
       names AS (
         SELECT vendor_key, first(vendor ORDER BY uses DESC, vendor) AS name FROM spellings GROUP BY vendor_key
       )
       SELECT p.vendor_key AS vendor, n.name,
              count(DISTINCT p.product_key)::INTEGER AS product_count, count(DISTINCT p.cve_id)::INTEGER AS cve_count
       FROM active_products p JOIN names n USING (vendor_key)
       GROUP BY p.vendor_key, n.name
       ORDER BY cve_count DESC, p.vendor_key`,
    ),
  );
  const prefix = q === undefined ? '' : vendorKeyOf(q);
  const matching = prefix === '' ? all : all.filter((v) => v.vendor.startsWith(prefix));
  return { vendors: matching.slice(paging.offset, paging.offset + paging.limit), total: matching.length, ...paging };
}
