/**
 * `manifest.json` of a snapshot: what was built, from what, with what parameters, and how
 * fresh each source was (its newest record in the data and its last fetch status), so the API
 * can show real source health.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { RAW_SOURCES, type RawSourceKey } from '../../lib/raw-layout.ts';
import { SNAPSHOT_SCHEMA_VERSION, SNAPSHOT_TABLES } from '../../lib/snapshot-layout.ts';
import { readSourceStatuses } from '../fetch/status.ts';
import type { StageResult } from '../parse/source.ts';
import type { BuildOptions } from './options.ts';
import type { SkippedReport } from './skipped.ts';

export interface SnapshotManifest {
  schema_version: number;
  build_id: string;
  built_at: string;
  build_seconds: number;
  /** Seconds each SQL step of sql/ took (the change step's cost is `10_changes.sql`). */
  step_seconds?: Record<string, number>;
  parameters: { related_product_threshold: number; mission_wellbeing: string };
  counts: Record<string, number>;
  /** Keyed by raw folder name (`nvd`, `cvelist`, …, `poc-in-github`), like the fetch statuses. */
  sources: Record<string, SourceManifest>;
  tables: Record<string, string>;
  /** Raw files and folders no parser read, with the names that would have been read. */
  skipped: SkippedReport;
}

export interface SourceManifest {
  files: number;
  records: number;
  /** Newest record time in the data (NVD lastModified, EPSS score date, …). */
  newest_record: string | null;
  detail: Record<string, string | number | null>;
  /** The fetcher's last status record for the source, null when it was never fetched here. */
  fetch: unknown;
}

/** Per source: the SQL giving its newest record time and extra detail. */
const FRESHNESS: Record<string, string> = {
  nvd: `SELECT strftime(max(last_modified), '%Y-%m-%dT%H:%M:%S.%gZ') AS newest FROM stg_nvd_cve`,
  cvelist: `SELECT strftime(max(date_updated), '%Y-%m-%dT%H:%M:%S.%gZ') AS newest FROM stg_cve5`,
  kev: `SELECT CAST(max(date_added) AS VARCHAR) AS newest, max(catalog_version) AS catalog_version FROM stg_kev`,
  epss: `SELECT CAST(max(score_date) AS VARCHAR) AS newest, max(model_version) AS model_version FROM stg_epss`,
  ghsa: `SELECT strftime(max(modified), '%Y-%m-%dT%H:%M:%S.%gZ') AS newest FROM stg_osv_advisory`,
  csaf: `SELECT strftime(max(modified), '%Y-%m-%dT%H:%M:%S.%gZ') AS newest, count(DISTINCT vendor) AS vendors FROM stg_vendor_advisory a JOIN stg_file f ON f.id = a.file WHERE f.path NOT LIKE '%/msrc/%'`,
  msrc: `SELECT strftime(max(modified), '%Y-%m-%dT%H:%M:%S.%gZ') AS newest FROM stg_vendor_advisory a JOIN stg_file f ON f.id = a.file WHERE f.path LIKE '%/msrc/%'`,
  exploitdb: `SELECT strftime(max(published), '%Y-%m-%dT%H:%M:%S.%gZ') AS newest FROM stg_exploit WHERE source = 'exploitdb'`,
  metasploit: `SELECT strftime(max(published), '%Y-%m-%dT%H:%M:%S.%gZ') AS newest FROM stg_exploit WHERE source = 'metasploit'`,
  pocInGithub: `SELECT strftime(max(published), '%Y-%m-%dT%H:%M:%S.%gZ') AS newest FROM stg_exploit WHERE source = 'poc-in-github'`,
};

const COUNTS: Record<string, string> = {
  cves: `SELECT count(*) FROM cves`,
  active: `SELECT count(*) FROM cves WHERE status = 'active'`,
  rejected: `SELECT count(*) FROM cves WHERE status = 'rejected'`,
  v2_only: `SELECT count(*) FROM cves WHERE cvss_v3_score = 0 AND cvss_v2_score > 0`,
  kev: `SELECT count(*) FROM cves WHERE in_kev`,
  epss: `SELECT count(*) FROM cves WHERE epss_score IS NOT NULL`,
  advisories: `SELECT count(*) FROM advisories`,
  advisories_without_cve: `SELECT count(*) FROM advisories WHERE NOT has_cve`,
  osv_advisories: `SELECT count(*) FROM osv_advisories`,
  affected_packages: `SELECT count(*) FROM affected_packages`,
  products: `SELECT count(*) FROM products`,
  references: `SELECT count(*) FROM "references"`,
  exploits: `SELECT count(*) FROM exploits`,
  cwes: `SELECT count(*) FROM cwes`,
  related_keys: `SELECT count(*) FROM related_keys`,
  search_terms: `SELECT count(*) FROM search_terms`,
  changes: `SELECT count(*) FROM changes`,
  changes_this_build: `SELECT count(*) FROM changes_new`,
};

async function scalarRow(connection: DuckDBConnection, sql: string): Promise<Record<string, unknown>> {
  const reader = await connection.runAndReadAll(sql);
  return (reader.getRowObjectsJson()[0] ?? {}) as Record<string, unknown>;
}

/** What the staging tables say of each staged source's freshness: its newest record and detail. */
export type SourceFreshness = Record<string, { newest: string | null; detail: Record<string, string | number | null> }>;

/**
 * Reads FRESHNESS from the staging tables, right after `sql/01_stage.sql` (STAGE_STEP): the later
 * steps drop those tables once nothing reads them.
 */
export async function readSourceFreshness(connection: DuckDBConnection, staged: Record<string, StageResult>): Promise<SourceFreshness> {
  const freshness: SourceFreshness = {};
  for (const key of Object.keys(staged)) {
    const detail: Record<string, string | number | null> = {};
    let newest: string | null = null;
    if (FRESHNESS[key]) {
      const row = await scalarRow(connection, FRESHNESS[key]);
      newest = (row.newest as string | null) ?? null;
      for (const [k, v] of Object.entries(row)) if (k !== 'newest') detail[k] = v === null ? null : typeof v === 'number' ? v : String(v);
    }
    freshness[key] = { newest, detail };
  }
  return freshness;
}

export async function buildManifest(
  connection: DuckDBConnection,
  ctx: {
    buildId: string;
    opts: BuildOptions;
    staged: Record<string, StageResult>;
    freshness: SourceFreshness;
    skipped: SkippedReport;
    startedMs: number;
    stepSeconds?: Record<string, number>;
  },
): Promise<SnapshotManifest> {
  const counts: Record<string, number> = {};
  for (const [name, sql] of Object.entries(COUNTS)) {
    const row = await scalarRow(connection, sql);
    counts[name] = Number(Object.values(row)[0] ?? 0);
  }
  const statuses = await readSourceStatuses(ctx.opts.rawDir);
  const sources: Record<string, SourceManifest> = {};
  for (const [key, result] of Object.entries(ctx.staged)) {
    const { newest, detail } = ctx.freshness[key] ?? { newest: null, detail: {} };
    const folder = RAW_SOURCES[key as RawSourceKey] ?? key;
    sources[folder] = { files: result.files, records: result.records, newest_record: newest, detail, fetch: statuses[folder] ?? null };
  }
  return {
    schema_version: SNAPSHOT_SCHEMA_VERSION,
    build_id: ctx.buildId,
    built_at: new Date().toISOString(),
    build_seconds: Math.round((performance.now() - ctx.startedMs) / 100) / 10,
    ...(ctx.stepSeconds ? { step_seconds: Object.fromEntries(Object.entries(ctx.stepSeconds).map(([f, s]) => [f, Math.round(s * 100) / 100])) } : {}),
    parameters: {
      related_product_threshold: ctx.opts.relatedProductThreshold,
      mission_wellbeing: ctx.opts.missionWellbeing,
    },
    counts,
    sources,
    tables: { ...SNAPSHOT_TABLES },
    skipped: ctx.skipped,
  };
}
