/**
 * Vendor-disclosed advisories (contract 2.7, 4.9, 4.10): a filtered, paged list newest first,
 * and one advisory in full with the CVEs it names. Many advisories exist before a CVE does;
 * `has_cve` says whether any CVE is linked yet.
 */
import { isoTimestampSql, requireTables, selectRows, vendorAdvisoryApiPath, type SnapshotReader } from './support.ts';

export interface AdvisoryListFilter {
  /** true: only advisories linked to a CVE; false: only those not linked yet. */
  hasCve?: boolean;
  /** The advisory source, as in the path (`redhat`, `cisco`, …); case-insensitive. */
  vendor?: string;
  /** Only advisories modified (else published) at or after this instant (µs since the epoch, UTC). */
  sinceMicros?: bigint;
  limit: number;
  offset: number;
}

export interface AdvisorySummary {
  vendor: string;
  advisory_id: string;
  api_path: string;
  title: string | null;
  published: string | null;
  modified: string | null;
  /** The advisory's own severity label (e.g. CSAF aggregate severity), as the vendor words it. */
  aggregate_severity: string | null;
  vendor_severity: string | null;
  vendor_severity_source: string | null;
  /** The exact advisory text the band was read from (contract 1.x), in the list as in the detail. */
  vendor_severity_evidence: string | null;
  cvss_score: number | null;
  has_cve: boolean;
  cve_ids: string[];
  exploited: boolean;
  url: string | null;
}

export interface AdvisoryPage {
  advisories: AdvisorySummary[];
  total: number;
  limit: number;
  offset: number;
}

export interface AdvisoryCveLink {
  cve_id: string;
  /** The vendor's band for this CVE, in its own taxonomy (contract 2.2: not a CVSS band). */
  vendor_severity: string | null;
  vendor_severity_source: string | null;
  vendor_severity_evidence: string | null;
  cvss_score: number | null;
  cvss_vector: string | null;
  cvss_version: string | null;
  exploited: boolean;
  exploited_evidence: string | null;
  cwe_id: string | null;
  /** The CVE's path in this API, when the snapshot holds the CVE. */
  api_path: string | null;
}

export interface AdvisoryDetail extends AdvisorySummary {
  description: string | null;
  publisher: string | null;
  category: string | null;
  tlp: string | null;
  status: string | null;
  version: string | null;
  aggregate_severity_namespace: string | null;
  cvss_vector: string | null;
  /** Affected products as the vendor names them. */
  products: string[];
  remediations: { category: string | null; details: string | null; url: string | null }[];
  references: { url: string | null; summary: string | null; category: string | null }[];
  /** Per linked CVE: the vendor's band, CVSS and exploitation evidence for that CVE. */
  cves: AdvisoryCveLink[];
}

function summaryColumns(alias: string): string {
  return `${alias}.vendor, ${alias}.advisory_id, ${alias}.title,
          ${isoTimestampSql(`${alias}.published`)} AS published, ${isoTimestampSql(`${alias}.modified`)} AS modified,
          ${alias}.aggregate_severity, ${alias}.vendor_severity, ${alias}.vendor_severity_source,
          ${alias}.vendor_severity_evidence, ${alias}.cvss_score,
          ${alias}.has_cve, coalesce(${alias}.cve_ids, []) AS cve_ids, coalesce(${alias}.exploited, false) AS exploited, ${alias}.url`;
}

export async function listVendorAdvisories(reader: SnapshotReader, filter: AdvisoryListFilter): Promise<AdvisoryPage> {
  requireTables(reader, 'advisories');
  const where: string[] = [];
  const params: (string | boolean | bigint)[] = [];
  if (filter.hasCve !== undefined) {
    params.push(filter.hasCve);
    where.push(`has_cve = $${params.length}`);
  }
  if (filter.vendor !== undefined) {
    params.push(filter.vendor.toLowerCase());
    where.push(`lower(vendor) = $${params.length}`);
  }
  if (filter.sinceMicros !== undefined) {
    params.push(filter.sinceMicros);
    where.push(`coalesce(modified, published) >= make_timestamp(CAST($${params.length} AS BIGINT))`);
  }
  const whereSql = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const [count] = await selectRows<{ total: number }>(reader, `SELECT count(*)::INTEGER AS total FROM advisories a ${whereSql}`, params);
  const rows = await selectRows<Omit<AdvisorySummary, 'api_path'>>(
    reader,
    `SELECT ${summaryColumns('a')} FROM advisories a ${whereSql}
     ORDER BY a.published DESC NULLS LAST, a.modified DESC NULLS LAST, a.vendor, a.advisory_id DESC
     LIMIT ${filter.limit} OFFSET ${filter.offset}`,
    params,
  );
  return {
    advisories: rows.map((r) => ({ ...r, api_path: vendorAdvisoryApiPath(r.vendor, r.advisory_id) })),
    total: count?.total ?? 0,
    limit: filter.limit,
    offset: filter.offset,
  };
}

/** The snapshot tables one advisory is read from; without either the answer is unavailable. */
export const VENDOR_ADVISORY_TABLES = ['advisories', 'advisory_cves'] as const;

/**
 * One advisory, or null. Vendor and id match case-insensitively (ids are often typed in lower
 * case); an exact spelling wins over another case.
 */
export async function findVendorAdvisory(reader: SnapshotReader, vendor: string, advisoryId: string): Promise<AdvisoryDetail | null> {
  requireTables(reader, ...VENDOR_ADVISORY_TABLES);
  const [row] = await selectRows<Omit<AdvisoryDetail, 'api_path' | 'cves'>>(
    reader,
    `SELECT ${summaryColumns('a')}, a.description, a.publisher, a.category, a.tlp, a.status, a.version,
            a.aggregate_severity_namespace, a.cvss_vector,
            coalesce(a.products, []) AS products, coalesce(a.remediations, []) AS remediations,
            coalesce(a."references", []) AS "references"
     FROM advisories a
     WHERE lower(a.vendor) = lower($1) AND lower(a.advisory_id) = lower($2)
     ORDER BY (a.advisory_id = $2) DESC, a.advisory_id
     LIMIT 1`,
    [vendor, advisoryId],
  );
  if (!row) return null;
  const cves = await readCveLinks(reader, row.vendor, row.advisory_id);
  return { ...row, api_path: vendorAdvisoryApiPath(row.vendor, row.advisory_id), cves };
}

async function readCveLinks(reader: SnapshotReader, vendor: string, advisoryId: string): Promise<AdvisoryCveLink[]> {
  const rows = await selectRows<Omit<AdvisoryCveLink, 'api_path'> & { known: boolean }>(
    reader,
    `SELECT ac.cve_id, ac.vendor_severity, ac.vendor_severity_source, ac.vendor_severity_evidence,
            ac.cvss_score, ac.cvss_vector, ac.cvss_version, coalesce(ac.exploited, false) AS exploited,
            ac.exploited_evidence, ac.cwe_id,
            EXISTS (SELECT 1 FROM cves c WHERE c.cve_id = ac.cve_id) AS known
     FROM advisory_cves ac
     WHERE ac.vendor = $1 AND ac.advisory_id = $2
     ORDER BY ac.cve_id`,
    [vendor, advisoryId],
  );
  return rows.map(({ known, ...link }) => ({ ...link, api_path: known ? `/api/v1/public/cves/${link.cve_id}` : null }));
}
