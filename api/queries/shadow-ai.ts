/**
 * The shadow-AI radar (contract 4.11 `/shadow-ai-radar`): active CVEs and vendor advisories
 * that touch the AI/ML software of `api/shadow-ai/catalog.ts`, newest first, each naming the
 * catalog components it matched.
 *
 * Matching reads three side tables in full (products, affected packages, advisory product
 * names), so it runs once per open snapshot and the matched rows are kept beside its connection;
 * a request only filters and slices them.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { SHADOW_AI_CATALOG, type ShadowAiCategory, type ShadowAiComponent } from '../shadow-ai/catalog.ts';
import { cveSummaryColumns, type CveSummary } from './cve-summary.ts';
import { isoTimestampSql, requireTables, selectRows, vendorAdvisoryApiPath, type SnapshotReader } from './support.ts';

export interface RadarQuery {
  /** Component ids to keep (all when empty). */
  components: readonly string[];
  /** Only CVEs last modified (advisories modified, else published) at or after this instant (µs, UTC). */
  sinceMicros?: bigint;
  /** Rows of each list. */
  limit: number;
}

export interface RadarCve extends CveSummary {
  components: string[];
}

export interface RadarAdvisory {
  vendor: string;
  advisory_id: string;
  api_path: string;
  title: string | null;
  published: string | null;
  modified: string | null;
  vendor_severity: string | null;
  cvss_score: number | null;
  has_cve: boolean;
  cve_ids: string[];
  components: string[];
}

export interface RadarComponentHit {
  id: string;
  name: string;
  category: ShadowAiCategory;
  cve_count: number;
  advisory_count: number;
}

export interface ShadowAiRadar {
  /** Catalog components with at least one CVE or advisory under the filter, most CVEs first. */
  components: RadarComponentHit[];
  cves: RadarCve[];
  advisories: RadarAdvisory[];
  total_cves: number;
  total_advisories: number;
  limit: number;
}

interface RadarIndex {
  cves: RadarCve[];
  advisories: (RadarAdvisory & { changed: string | null })[];
}

const indexCache = new WeakMap<DuckDBConnection, Promise<RadarIndex>>();

export async function shadowAiRadar(reader: SnapshotReader, query: RadarQuery): Promise<ShadowAiRadar> {
  requireTables(reader, 'products', 'affected_packages', 'advisories');
  const index = await radarIndex(reader, SHADOW_AI_CATALOG);
  const wanted = query.components.length > 0 ? new Set(query.components) : null;
  const since = query.sinceMicros;
  // Times of the index are ISO strings with milliseconds; compare them as microseconds.
  const before = (iso: string | null) => iso === null || BigInt(Date.parse(iso)) * 1000n < since!;
  const keep = (components: string[]) => (wanted === null ? components : components.filter((c) => wanted.has(c)));

  const cves: RadarCve[] = [];
  for (const cve of index.cves) {
    const components = keep(cve.components);
    if (components.length === 0) continue;
    if (since !== undefined && before(cve.last_modified)) continue;
    cves.push(components === cve.components ? cve : { ...cve, components });
  }
  const advisories: RadarAdvisory[] = [];
  for (const { changed, ...advisory } of index.advisories) {
    const components = keep(advisory.components);
    if (components.length === 0) continue;
    if (since !== undefined && before(changed)) continue;
    advisories.push({ ...advisory, components });
  }
  return {
    components: componentHits(cves, advisories),
    cves: cves.slice(0, query.limit),
    advisories: advisories.slice(0, query.limit),
    total_cves: cves.length,
    total_advisories: advisories.length,
    limit: query.limit,
  };
}

function componentHits(cves: RadarCve[], advisories: RadarAdvisory[]): RadarComponentHit[] {
  const counts = new Map<string, { cves: number; advisories: number }>();
  const bump = (id: string, field: 'cves' | 'advisories') => {
    const c = counts.get(id) ?? { cves: 0, advisories: 0 };
    c[field] += 1;
    counts.set(id, c);
  };
  for (const cve of cves) for (const id of cve.components) bump(id, 'cves');
  for (const adv of advisories) for (const id of adv.components) bump(id, 'advisories');
  return SHADOW_AI_CATALOG.filter((c) => counts.has(c.id))
    .map((c) => ({ id: c.id, name: c.name, category: c.category, cve_count: counts.get(c.id)!.cves, advisory_count: counts.get(c.id)!.advisories }))
    .sort((a, b) => b.cve_count - a.cve_count || b.advisory_count - a.advisory_count || a.id.localeCompare(b.id));
}

/** The matched rows of one snapshot, computed on first use (exported for tests). */
export function radarIndex(reader: SnapshotReader, catalog: readonly ShadowAiComponent[]): Promise<RadarIndex> {
  if (catalog !== SHADOW_AI_CATALOG) return buildIndex(reader, catalog);
  let pending = indexCache.get(reader.connection);
  if (!pending) {
    pending = buildIndex(reader, catalog);
    indexCache.set(reader.connection, pending);
    pending.catch(() => indexCache.delete(reader.connection));
  }
  return pending;
}

const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;

/** `VALUES (…), (…)` of a catalog projection, or a typed empty relation. */
function valuesSql(rows: string[][], columns: string[]): string {
  if (rows.length === 0) return `SELECT ${columns.map((c) => `NULL::VARCHAR AS ${c}`).join(', ')} WHERE false`;
  return `SELECT * FROM (VALUES ${rows.map((r) => `(${r.map(quote).join(', ')})`).join(', ')}) AS t(${columns.join(', ')})`;
}

async function buildIndex(reader: SnapshotReader, catalog: readonly ShadowAiComponent[]): Promise<RadarIndex> {
  const productKeys = valuesSql(
    catalog.flatMap((c) => c.products.map(([v, p]) => [c.id, v, p])),
    ['component', 'vendor_key', 'product_key'],
  );
  const packageKeys = valuesSql(
    catalog.flatMap((c) => c.packages.map(([e, n]) => [c.id, e.toLowerCase(), n.toLowerCase()])),
    ['component', 'ecosystem', 'name'],
  );
  const advisoryPatterns = valuesSql(
    catalog.flatMap((c) => c.advisory.map((pattern) => [c.id, pattern])),
    ['component', 'pattern'],
  );
  const anyPattern = catalog.flatMap((c) => c.advisory).map((p) => `(?:${p})`).join('|') || '$^';

  const cveRows = await selectRows<Omit<RadarCve, 'components'> & { components: string[] }>(
    reader,
    `WITH product_keys AS (${productKeys}),
     package_keys AS (${packageKeys}),
     hits AS (
       SELECT p.cve_id, k.component FROM products p JOIN product_keys k USING (vendor_key, product_key)
       UNION
       SELECT ap.cve_id, k.component FROM affected_packages ap
       JOIN package_keys k ON lower(ap.package_name) = k.name AND (ap.ecosystem IS NULL OR lower(ap.ecosystem) = k.ecosystem)
     ),
     per_cve AS (SELECT cve_id, list(DISTINCT component ORDER BY component) AS components FROM hits GROUP BY cve_id)
     SELECT ${cveSummaryColumns('c')}, h.components
     FROM per_cve h JOIN cves c USING (cve_id)
     WHERE c.status = 'active'
     ORDER BY c.published DESC NULLS LAST, c.cve_id DESC`,
  );

  // One combined expression first keeps the per-component patterns to the few names that hit.
  const advisoryRows = await selectRows<Omit<RadarAdvisory, 'api_path'> & { changed: string | null }>(
    reader,
    `WITH patterns AS (${advisoryPatterns}),
     named AS (SELECT vendor, advisory_id, lower(unnest(products)) AS product FROM advisories),
     candidates AS (SELECT DISTINCT product FROM named WHERE regexp_matches(product, ${quote(anyPattern)})),
     matched AS (SELECT c.product, p.component FROM candidates c JOIN patterns p ON regexp_matches(c.product, p.pattern)),
     per_advisory AS (
       SELECT n.vendor, n.advisory_id, list(DISTINCT m.component ORDER BY m.component) AS components
       FROM named n JOIN matched m USING (product) GROUP BY n.vendor, n.advisory_id
     )
     SELECT a.vendor, a.advisory_id, a.title,
            ${isoTimestampSql('a.published')} AS published, ${isoTimestampSql('a.modified')} AS modified,
            ${isoTimestampSql('coalesce(a.modified, a.published)')} AS changed,
            a.vendor_severity, a.cvss_score, a.has_cve, coalesce(a.cve_ids, []) AS cve_ids, pa.components
     FROM per_advisory pa JOIN advisories a USING (vendor, advisory_id)
     ORDER BY a.published DESC NULLS LAST, a.vendor, a.advisory_id DESC`,
  );
  return {
    cves: cveRows,
    advisories: advisoryRows.map((a) => ({ ...a, api_path: vendorAdvisoryApiPath(a.vendor, a.advisory_id) })),
  };
}
