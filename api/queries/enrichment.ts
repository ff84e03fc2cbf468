/**
 * The enrichment of one CVE (contract 2.6, 4.6): vendor advisories, patches, fixed versions,
 * affected packages, CWEs, public exploits and a dated timeline, each read on its own.
 *
 * A section whose snapshot table could not be loaded (openSnapshot's `unreadableTables`), or
 * whose query fails, is served empty and named in `failed_sections`: one damaged side table
 * costs one section, never the answer.
 */
import type { ExploitRecord } from './references.ts';
import { isoTimestampSql, selectRows, vendorAdvisoryApiPath, type SnapshotReader } from './support.ts';

export const ENRICHMENT_SECTIONS = [
  'vendor_advisories',
  'patches',
  'fixed_versions',
  'affected_packages',
  'cwes',
  'exploits',
  'timeline',
] as const;
export type EnrichmentSection = (typeof ENRICHMENT_SECTIONS)[number];

/** The snapshot tables each section reads; one unreadable table fails the section. */
export const SECTION_TABLES: Record<EnrichmentSection, readonly string[]> = {
  vendor_advisories: ['advisory_cves', 'advisories'],
  patches: ['references'],
  fixed_versions: ['affected_packages'],
  affected_packages: ['affected_packages'],
  cwes: ['cve_cwes', 'cwes'],
  exploits: ['exploits', 'references'],
  timeline: ['cves', 'advisory_cves', 'advisories', 'osv_advisories', 'exploits'],
};

export interface EnrichedVendorAdvisory {
  vendor: string;
  advisory_id: string;
  api_path: string;
  title: string | null;
  published: string | null;
  modified: string | null;
  /** The vendor's band for this CVE (else the advisory's), in the vendor's own taxonomy. */
  vendor_severity: string | null;
  vendor_severity_source: string | null;
  vendor_severity_evidence: string | null;
  cvss_score: number | null;
  cvss_vector: string | null;
  exploited: boolean;
  exploited_evidence: string | null;
  cwe_id: string | null;
  remediations: { category: string | null; details: string | null; url: string | null }[];
  url: string | null;
}

export interface PatchReference {
  url: string;
  name: string | null;
  tags: string[];
  sources: string[];
}

export interface FixBranch {
  introduced: string | null;
  fixed: string | null;
  last_affected: string | null;
  source: string | null;
  advisory_id: string | null;
  /** OSV range type: SEMVER, ECOSYSTEM or GIT. */
  range_type: string | null;
  /** The range's `limit` event, if any. */
  limit: string | null;
}

export interface AffectedPackage {
  ecosystem: string | null;
  package_name: string;
  purl: string | null;
  /** `osv` (ranges loaded from OSV/GHSA) or `cve_list` (named by a CVE record; no ranges). */
  source: string;
  advisory_ids: string[];
  /** Exactly as stored: null = ranges never loaded, [] = no range on record (contract 2.6). */
  fixed_branches: FixBranch[] | null;
  fixed_version: string | null;
  versions: string[];
  last_known_affected_version_range: string | null;
}

export interface FixedVersions {
  ecosystem: string | null;
  package_name: string;
  purl: string | null;
  /** Every distinct fix over the package's ranges, in record order. */
  fixed: string[];
  advisory_ids: string[];
}

export interface CveCwe {
  cwe_id: string;
  name: string | null;
  abstraction: string | null;
}

export interface EnrichmentExploit extends ExploitRecord {
  /** false for a reference tagged as an exploit that no exploit database lists. */
  from_exploit_record: boolean;
}

export interface TimelineEvent {
  /** ISO 8601 UTC; a source that gives only a day gives midnight. */
  date: string;
  event:
    | 'published'
    | 'last_modified'
    | 'kev_added'
    | 'epss_scored'
    | 'vendor_advisory_published'
    | 'ghsa_published'
    | 'osv_published'
    | 'exploit_published';
  /** Who says so: `cve` (the merged record), kev, epss, a vendor, an OSV database, an exploit database. */
  source: string;
  /** The record behind the event (advisory id, exploit id), when there is one. */
  ref: string | null;
}

export interface CveEnrichment {
  cve_id: string;
  vendor_advisories: EnrichedVendorAdvisory[];
  patches: PatchReference[];
  fixed_versions: FixedVersions[];
  affected_packages: AffectedPackage[];
  cwes: CveCwe[];
  exploits: EnrichmentExploit[];
  timeline: TimelineEvent[];
  failed_sections: EnrichmentSection[];
}

export interface EnrichmentOptions {
  /** Told about every section that failed by a query error (not by an unreadable table). */
  onSectionError?: (section: EnrichmentSection, err: unknown) => void;
}

/** Null when the CVE is not in the snapshot. */
export async function findCveEnrichment(reader: SnapshotReader, cveId: string, options: EnrichmentOptions = {}): Promise<CveEnrichment | null> {
  const exists = await selectRows<{ cve_id: string }>(reader, `SELECT cve_id FROM cves WHERE cve_id = $1`, [cveId]);
  if (exists.length === 0) return null;

  const unreadable = unreadableSections(reader.unreadableTables);
  const failed: EnrichmentSection[] = [];
  // Sections run one after another: they share the snapshot's connection anyway.
  const section = async <T>(name: EnrichmentSection, read: () => Promise<T[]>): Promise<T[]> => {
    if (unreadable.includes(name)) {
      failed.push(name);
      return [];
    }
    try {
      return await read();
    } catch (err) {
      failed.push(name);
      options.onSectionError?.(name, err);
      return [];
    }
  };

  const vendor_advisories = await section('vendor_advisories', () => readVendorAdvisories(reader, cveId));
  const patches = await section('patches', () => readPatches(reader, cveId));
  const affected_packages = await section('affected_packages', () => readAffectedPackages(reader, cveId));
  // Fixed versions are read from the same rows: they fail with them.
  let fixed_versions: FixedVersions[] = [];
  if (failed.includes('affected_packages')) failed.push('fixed_versions');
  else fixed_versions = fixedVersionsOf(affected_packages);
  const cwes = await section('cwes', () => readCwes(reader, cveId));
  const exploits = await section('exploits', () => readExploits(reader, cveId));
  const timeline = await section('timeline', () => readTimeline(reader, cveId));
  const failed_sections = ENRICHMENT_SECTIONS.filter((name) => failed.includes(name));
  return { cve_id: cveId, vendor_advisories, patches, fixed_versions, affected_packages, cwes, exploits, timeline, failed_sections };
}

/**
 * The sections one of whose tables could not be loaded, in answer order (fixed_versions reads
 * the rows of affected_packages, so they fail together). Shared with the build's precomputed
 * answers.
 */
export function unreadableSections(unreadableTables: ReadonlySet<string>): EnrichmentSection[] {
  return ENRICHMENT_SECTIONS.filter((name) => SECTION_TABLES[name].some((t) => unreadableTables.has(t)));
}

async function readVendorAdvisories(reader: SnapshotReader, cveId: string): Promise<EnrichedVendorAdvisory[]> {
  const rows = await selectRows<Omit<EnrichedVendorAdvisory, 'api_path'>>(
    reader,
    // The per-CVE band, source and evidence travel together; a mix of the CVE's band and the
    // advisory's source would name the wrong taxonomy.
    `SELECT ac.vendor, ac.advisory_id, a.title,
            ${isoTimestampSql('a.published')} AS published, ${isoTimestampSql('a.modified')} AS modified,
            CASE WHEN ac.vendor_severity IS NOT NULL THEN ac.vendor_severity ELSE a.vendor_severity END AS vendor_severity,
            CASE WHEN ac.vendor_severity IS NOT NULL THEN ac.vendor_severity_source ELSE a.vendor_severity_source END AS vendor_severity_source,
            CASE WHEN ac.vendor_severity IS NOT NULL THEN ac.vendor_severity_evidence ELSE a.vendor_severity_evidence END AS vendor_severity_evidence,
            CASE WHEN ac.cvss_score IS NOT NULL THEN ac.cvss_score ELSE a.cvss_score END AS cvss_score,
            CASE WHEN ac.cvss_score IS NOT NULL THEN ac.cvss_vector ELSE a.cvss_vector END AS cvss_vector,
            coalesce(ac.exploited, false) AS exploited, ac.exploited_evidence, ac.cwe_id,
            coalesce(a.remediations, []) AS remediations, a.url
     FROM advisory_cves ac LEFT JOIN advisories a USING (vendor, advisory_id)
     WHERE ac.cve_id = $1
     ORDER BY a.published DESC NULLS LAST, ac.vendor, ac.advisory_id`,
    [cveId],
  );
  return rows.map((r) => ({ ...r, api_path: vendorAdvisoryApiPath(r.vendor, r.advisory_id) }));
}

async function readPatches(reader: SnapshotReader, cveId: string): Promise<PatchReference[]> {
  return selectRows<PatchReference>(
    reader,
    `SELECT url, name, coalesce(tags, []) AS tags, coalesce(sources, []) AS sources
     FROM "references" WHERE cve_id = $1 AND is_patch ORDER BY url`,
    [cveId],
  );
}

async function readAffectedPackages(reader: SnapshotReader, cveId: string): Promise<AffectedPackage[]> {
  return selectRows<AffectedPackage>(
    reader,
    `SELECT ecosystem, package_name, purl, source, coalesce(advisory_ids, []) AS advisory_ids,
            fixed_branches, fixed_version, coalesce(versions, []) AS versions, last_known_affected_version_range
     FROM affected_packages WHERE cve_id = $1
     ORDER BY ecosystem NULLS LAST, package_name`,
    [cveId],
  );
}

/** Packages with at least one fix on record, every distinct fix in branch order. */
export function fixedVersionsOf(packages: AffectedPackage[]): FixedVersions[] {
  const out: FixedVersions[] = [];
  for (const p of packages) {
    const fixed = [...new Set((p.fixed_branches ?? []).map((b) => b.fixed).filter((f): f is string => f !== null))];
    if (fixed.length === 0) continue;
    out.push({ ecosystem: p.ecosystem, package_name: p.package_name, purl: p.purl, fixed, advisory_ids: p.advisory_ids });
  }
  return out;
}

async function readCwes(reader: SnapshotReader, cveId: string): Promise<CveCwe[]> {
  return selectRows<CveCwe>(
    reader,
    `SELECT cc.cwe_id, w.name, w.abstraction
     FROM cve_cwes cc LEFT JOIN cwes w USING (cwe_id)
     WHERE cc.cve_id = $1
     ORDER BY TRY_CAST(regexp_extract(cc.cwe_id, '(\\d+)$', 1) AS INTEGER) NULLS LAST, cc.cwe_id`,
    [cveId],
  );
}

/** Exploit records, then references tagged as exploits that no record already shows. */
async function readExploits(reader: SnapshotReader, cveId: string): Promise<EnrichmentExploit[]> {
  const records = await selectRows<ExploitRecord>(
    reader,
    `SELECT source, exploit_id, url, title, ${isoTimestampSql('published')} AS published, verified
     FROM exploits WHERE cve_id = $1 ORDER BY published DESC NULLS LAST, source, exploit_id`,
    [cveId],
  );
  const taggedOnly = await selectRows<ExploitRecord>(
    reader,
    `SELECT 'reference' AS source, NULL AS exploit_id, r.url, r.name AS title, NULL AS published, NULL AS verified
     FROM "references" r
     WHERE r.cve_id = $1 AND r.is_exploit
       AND NOT EXISTS (SELECT 1 FROM exploits e WHERE e.cve_id = r.cve_id AND e.url = r.url)
     ORDER BY r.url`,
    [cveId],
  );
  return [
    ...records.map((r) => ({ ...r, from_exploit_record: true })),
    ...taggedOnly.map((r) => ({ ...r, from_exploit_record: false })),
  ];
}

async function readTimeline(reader: SnapshotReader, cveId: string): Promise<TimelineEvent[]> {
  const iso = (col: string) => isoTimestampSql(`CAST(${col} AS TIMESTAMP)`);
  return selectRows<TimelineEvent>(
    reader,
    `WITH record AS (SELECT * FROM cves WHERE cve_id = $1),
     events AS (
       SELECT published AS event_at, 'published' AS event, 'cve' AS source, NULL AS ref, 1 AS ord FROM record
       UNION ALL SELECT last_modified, 'last_modified', 'cve', NULL, 8 FROM record
       UNION ALL SELECT CAST(kev_added_date AS TIMESTAMP), 'kev_added', 'kev', NULL, 5 FROM record
       UNION ALL SELECT CAST(epss_date AS TIMESTAMP), 'epss_scored', 'epss', NULL, 7 FROM record
       UNION ALL
       SELECT a.published, 'vendor_advisory_published', a.vendor, a.advisory_id, 2
       FROM advisories a SEMI JOIN advisory_cves ac ON ac.vendor = a.vendor AND ac.advisory_id = a.advisory_id AND ac.cve_id = $1
       UNION ALL
       SELECT o.published, CASE WHEN lower(o.database) = 'ghsa' THEN 'ghsa_published' ELSE 'osv_published' END, o.database, o.advisory_id, 3
       FROM osv_advisories o
       WHERE o.withdrawn IS NULL AND (list_contains(o.cve_ids, $1) OR list_contains(o.aliases, $1))
       UNION ALL
       SELECT e.published, 'exploit_published', e.source, coalesce(e.exploit_id, e.url), 6
       FROM exploits e WHERE e.cve_id = $1
     )
     SELECT ${iso('event_at')} AS "date", event, source, ref FROM events
     WHERE event_at IS NOT NULL
     ORDER BY event_at, ord, source, ref`,
    [cveId],
  );
}
