/**
 * The staging tables: what the parsers of every upstream format emit, and what
 * `sql/01_stage.sql` loads (it declares the same columns with DuckDB types). This is the one
 * contract between parsing (TypeScript) and merging/scoring (SQL).
 *
 * Conventions for every row:
 * - Timestamps are ISO-8601 strings in UTC with a `Z` (`2024-01-31T12:00:00.000Z`); sources
 *   that publish no zone (NVD, legacy CVE 5) are read as UTC. Dates are `YYYY-MM-DD`.
 * - Absent values are `null`, never `''`; lists are `[]` when empty.
 * - CVE ids are upper-case `CVE-YYYY-NNNN…`; CWE ids are `CWE-<n>` (NVD's pseudo ids
 *   `NVD-CWE-noinfo` / `NVD-CWE-Other` are kept as they are).
 * - `file` is the raw document path (`archive.zip!entry` for zip members), for error messages
 *   and provenance. Child rows (metrics, references, CWEs, products, OSV packages/ranges,
 *   advisory↔CVE) carry the same `file` as their record, so SQL keeps only the children of
 *   the version of a record that wins.
 */

/** One NVD CVE API 2.0 record (`vulnerabilities[].cve`), one row per version seen. */
export interface NvdCveRow {
  cve_id: string;
  published: string;
  last_modified: string;
  vuln_status: string | null;
  /** The CNA as NVD names it (email or UUID). */
  source_identifier: string | null;
  /** English description (`lang == "en"`), text as published. */
  description: string | null;
  /** `cveTags[].tags`, flattened: `disputed`, `unsupported-when-assigned`, … */
  cve_tags: string[];
  /** NVD's KEV mirror (`cisaExploitAdd`, …), present only when NVD lists the CVE in KEV. */
  kev_date_added: string | null;
  kev_due_date: string | null;
  kev_required_action: string | null;
  kev_vulnerability_name: string | null;
  file: string;
}

/** One CVE JSON 5 record (CVE List V5 or Vulnrichment). */
export interface Cve5Row {
  cve_id: string;
  /** `PUBLISHED` or `REJECTED`. */
  state: string;
  assigner_org_id: string | null;
  assigner_short_name: string | null;
  date_reserved: string | null;
  date_published: string | null;
  /** `cveMetadata.dateUpdated`: decides which copy of a record wins. */
  date_updated: string | null;
  date_rejected: string | null;
  /** `containers.cna.providerMetadata.dateUpdated`: the freshness of the CNA's metrics. */
  cna_date_updated: string | null;
  title: string | null;
  description: string | null;
  rejected_reason: string | null;
  /** The CNA container's `tags` (`disputed`, `unsupported-when-assigned`, …), each once. */
  cna_tags: string[];
  /** CISA ADP `other.type == "kev"` → `content.dateAdded` (KEV membership as CVE 5 states it). */
  adp_kev_date_added: string | null;
  file: string;
}

export type MetricFeed = 'nvd' | 'cve5';
/**
 * Who assessed a metric. NVD records: `nvd` when `source == "nvd@nist.gov"`, `cna` when
 * `source == sourceIdentifier`, else `adp`. CVE 5 records: the CNA container is `cna`, every
 * ADP container `adp`. (`type: Primary` is not used: it does not always mean NVD.)
 */
export type MetricRole = 'nvd' | 'cna' | 'adp';

/** One CVSS metric (v2.0, v3.0, v3.1 or v4.0) from an NVD or CVE 5 record. */
export interface CvssRow {
  cve_id: string;
  feed: MetricFeed;
  role: MetricRole;
  /** The metric's `source` (NVD) or the container's `providerMetadata.shortName` (CVE 5). */
  provider: string | null;
  version: '2.0' | '3.0' | '3.1' | '4.0';
  vector: string | null;
  /** Always set when the vector is: computed from the vector when the record omits it. */
  base_score: number | null;
  /** Upper case as published (`HIGH`); null when the record has none (CVE 5 v2). */
  base_severity: string | null;
  /**
   * NVD v2 metrics only: the metric's `userInteractionRequired` flag. A v2 vector has no UI
   * component, so this is the only place a v2-only CVE says it needs a user (DESIGN §5.2,
   * automatable). Null elsewhere, and when NVD omits it.
   */
  user_interaction_required: boolean | null;
  /**
   * The freshness time of this metric (DESIGN §5): NVD `lastModified` for NVD-feed metrics,
   * `providerMetadata.dateUpdated` of the container for CVE 5 metrics.
   */
  modified: string | null;
  file: string;
}

/** SSVC decision points (CISA ADP in CVE 5, `ssvcV203` in NVD), values normalised. */
export interface SsvcRow {
  cve_id: string;
  feed: MetricFeed;
  /** `none` | `poc` | `active` (`public poc` → `poc`, any case). */
  exploitation: string | null;
  /** `yes` | `no`. */
  automatable: string | null;
  /** `partial` | `total`. */
  technical_impact: string | null;
  timestamp: string | null;
  file: string;
}

/** A CVE ↔ CWE link from NVD `weaknesses`, CVE 5 `problemTypes` or KEV `cwes`. */
export interface CveCweRow {
  cve_id: string;
  cwe_id: string;
  feed: string;
  provider: string | null;
  /** The raw document the row came from: ties it to one version of its record. */
  file: string;
}

/** A reference URL of a CVE, with its tags as the feed spells them. */
export interface ReferenceRow {
  cve_id: string;
  url: string;
  feed: string;
  provider: string | null;
  name: string | null;
  tags: string[];
  /** The raw document the row came from: ties it to one version of its record. */
  file: string;
}

/**
 * A vendor/product a CVE affects: vulnerable CPE matches of NVD configurations and CVE 5 /
 * NVD `affected[]` entries (skipping `n/a`). Feeds `/cves/match`, `/vendors` and search.
 */
export interface ProductRow {
  cve_id: string;
  feed: string;
  /** Lower case, as in CPE (`palo_alto_networks` stays as CPE spells it). */
  vendor: string;
  product: string;
  cpe: string | null;
  /**
   * Package coordinates where the entry names one (CVE 5 `packageName`, `collectionURL`,
   * `packageURL`); a package named only by its purl takes the purl's name.
   */
  package_name: string | null;
  collection_url: string | null;
  purl: string | null;
  /** The OSV ecosystem the entry's purl names (`PyPI` for `pkg:pypi/…`), else null. */
  ecosystem: string | null;
  /** Version bounds as published (CPE match or CVE 5 versions), for display only. */
  version_start_including: string | null;
  version_start_excluding: string | null;
  version_end_including: string | null;
  version_end_excluding: string | null;
  /** The raw document the row came from: ties it to one version of its record. */
  file: string;
}

/** One entry of the CISA KEV catalog. */
export interface KevRow {
  cve_id: string;
  vendor_project: string | null;
  product: string | null;
  vulnerability_name: string | null;
  date_added: string;
  short_description: string | null;
  required_action: string | null;
  due_date: string | null;
  /** `Known` | `Unknown`. */
  known_ransomware_campaign_use: string | null;
  notes: string | null;
  cwes: string[];
  catalog_version: string | null;
}

/** One EPSS row. */
export interface EpssRow {
  cve_id: string;
  epss: number;
  percentile: number;
  model_version: string | null;
  /** The file's `score_date`, as a date `YYYY-MM-DD`. */
  score_date: string | null;
}

/** One OSV record (GHSA, Go, Ubuntu, …). */
export interface OsvAdvisoryRow {
  advisory_id: string;
  /** `ghsa` for GHSA-… ids, else the id prefix lower-cased (`go`, `ubuntu`, `usn`, …). */
  database: string;
  modified: string | null;
  published: string | null;
  withdrawn: string | null;
  summary: string | null;
  details: string | null;
  /** `database_specific.severity` upper-cased: LOW / MODERATE / HIGH / CRITICAL. */
  severity_band: string | null;
  cvss_v3_vector: string | null;
  cvss_v3_score: number | null;
  cvss_v4_vector: string | null;
  cvss_v4_score: number | null;
  /** Every alias as published. */
  aliases: string[];
  /** The CVEs this record is about: CVE aliases, the id itself if a CVE, `upstream` CVEs. */
  cve_ids: string[];
  cwe_ids: string[];
  github_reviewed: boolean | null;
  /** The advisory's own page (`ADVISORY` reference, else the first reference). */
  url: string | null;
  references: Array<{ type: string | null; url: string }>;
  file: string;
}

/** One `affected[]` entry of an OSV record (a package, possibly repeated per branch). */
export interface OsvPackageRow {
  advisory_id: string;
  /** Index of the entry in `affected[]`: keeps the record's order. */
  affected_index: number;
  ecosystem: string;
  package_name: string;
  purl: string | null;
  /** Explicit `versions[]`. */
  versions: string[];
  /** `database_specific.last_known_affected_version_range` (GitHub's `< X` / `<= X`). */
  last_known_affected_version_range: string | null;
  /** Number of ranges the entry carries (0 = no version range on record). */
  range_count: number;
  /** The raw document the row came from: ties it to one version of its record. */
  file: string;
}

/**
 * One affected branch of an OSV range: an `introduced` event paired with the `fixed` or
 * `last_affected` that closes it, walking the events in the record's order (contract 2.6: branches
 * keep "that record's order"). A range with several
 * introduced/fixed pairs (Go SEMVER) gives several rows.
 */
export interface OsvRangeRow {
  advisory_id: string;
  affected_index: number;
  range_index: number;
  /** Order of the branch inside the range. */
  branch_index: number;
  /** `SEMVER` | `ECOSYSTEM` | `GIT`. */
  range_type: string;
  repo: string | null;
  introduced: string | null;
  fixed: string | null;
  last_affected: string | null;
  limit: string | null;
  /** The raw document the row came from: ties it to one version of its record. */
  file: string;
}

/** One CSAF 2.0 document (or MSRC CVRF document): an advisory. */
export interface VendorAdvisoryRow {
  /** Vendor slug: the `csaf/<vendor>/` folder name, `microsoft` for MSRC CVRF. */
  vendor: string;
  /** `document.tracking.id` (CVRF: `DocumentTracking.Identification.ID`). */
  advisory_id: string;
  title: string | null;
  /** The summary/description note text. */
  description: string | null;
  publisher: string | null;
  category: string | null;
  tlp: string | null;
  status: string | null;
  version: string | null;
  published: string | null;
  modified: string | null;
  /** `document.aggregate_severity.text` as published, and its namespace. */
  aggregate_severity: string | null;
  aggregate_severity_namespace: string | null;
  /** Normalised band of the vendor's taxonomy (CRITICAL/HIGH/MEDIUM/LOW), see vendor_severity. */
  vendor_severity: string | null;
  vendor_severity_source: string | null;
  vendor_severity_evidence: string | null;
  /** Highest CVSS score in the document, with its vector. */
  cvss_score: number | null;
  cvss_vector: string | null;
  /** Product names resolved from the product tree (affected/fixed). */
  products: string[];
  remediations: Array<{ category: string; details: string | null; url: string | null }>;
  references: Array<{ url: string; summary: string | null; category: string | null }>;
  cve_ids: string[];
  /** The document's own URL (`self` reference), if any. */
  url: string | null;
  file: string;
}

/** One vulnerability of a vendor advisory that names a CVE. */
export interface VendorAdvisoryCveRow {
  vendor: string;
  advisory_id: string;
  cve_id: string;
  /** Vendor band for this CVE (CRITICAL/HIGH/MEDIUM/LOW), its taxonomy and exact evidence. */
  vendor_severity: string | null;
  vendor_severity_source: string | null;
  vendor_severity_evidence: string | null;
  cvss_score: number | null;
  cvss_vector: string | null;
  cvss_version: string | null;
  /** The vendor says the CVE is exploited in the wild (MSRC `Exploited:Yes`, CSAF threats). */
  exploited: boolean;
  exploited_evidence: string | null;
  cwe_id: string | null;
  /** The raw document the row came from: ties it to one version of its record. */
  file: string;
}

/** A verified exploit record naming a CVE. */
export interface ExploitRow {
  cve_id: string;
  /** `exploitdb` | `metasploit` | `nuclei` | `poc-in-github`. */
  source: string;
  /** The record's id in that source (EDB id, module fullname, template id, repo full_name). */
  exploit_id: string;
  url: string | null;
  title: string | null;
  published: string | null;
  /** Exploit-DB `verified`; true for curated sources (Metasploit, nuclei). */
  verified: boolean | null;
}

/** One CWE entry (weakness, category or view). */
export interface CweRow {
  cwe_id: string;
  name: string;
  /** `weakness` | `category` | `view`. */
  kind: string;
  abstraction: string | null;
  status: string | null;
  description: string | null;
}

/**
 * The staging writer's dictionary of raw documents: rows carry a short id in `file` (ids sort
 * in reading order within a writer), this table maps it back to the path. Written by the
 * writer itself, not by parsers.
 */
export interface FileRow {
  id: string;
  path: string;
}

export interface StageTables {
  nvd_cve: NvdCveRow;
  cve5: Cve5Row;
  cvss: CvssRow;
  ssvc: SsvcRow;
  cve_cwe: CveCweRow;
  reference: ReferenceRow;
  product: ProductRow;
  kev: KevRow;
  epss: EpssRow;
  osv_advisory: OsvAdvisoryRow;
  osv_package: OsvPackageRow;
  osv_range: OsvRangeRow;
  vendor_advisory: VendorAdvisoryRow;
  vendor_advisory_cve: VendorAdvisoryCveRow;
  exploit: ExploitRow;
  cwe: CweRow;
  file: FileRow;
}

export type StageTableName = keyof StageTables;

export const STAGE_TABLES: StageTableName[] = [
  'nvd_cve', 'cve5', 'cvss', 'ssvc', 'cve_cwe', 'reference', 'product', 'kev', 'epss',
  'osv_advisory', 'osv_package', 'osv_range', 'vendor_advisory', 'vendor_advisory_cve',
  'exploit', 'cwe', 'file',
];

/** Where parsers send rows. */
export interface StageSink {
  emit<T extends StageTableName>(table: T, row: StageTables[T]): void;
}
