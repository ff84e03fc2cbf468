/**
 * Where snapshots live (DESIGN §4): `<data>/snapshots/<build-id>/…` and `<data>/CURRENT`
 * naming the published one. Shared by the build (writer), the server and `vulnintel sql`.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export const SNAPSHOT_SCHEMA_VERSION = 1;

export function snapshotsDir(dataDir: string): string {
  return join(dataDir, 'snapshots');
}

export function currentPointer(dataDir: string): string {
  return join(dataDir, 'CURRENT');
}

/** The published build id, or null when nothing is published yet. */
export async function readCurrentBuildId(dataDir: string): Promise<string | null> {
  try {
    const id = (await readFile(currentPointer(dataDir), 'utf8')).trim();
    return id === '' ? null : id;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Parquet tables of a snapshot, by view name. `cves` is a hive-partitioned folder. */
export const SNAPSHOT_TABLES: Record<string, string> = {
  cves: 'cves/*/*.parquet',
  affected_packages: 'affected_packages.parquet',
  products: 'products.parquet',
  references: 'references.parquet',
  exploits: 'exploits.parquet',
  advisories: 'advisories.parquet',
  advisory_cves: 'advisory_cves.parquet',
  osv_advisories: 'osv_advisories.parquet',
  cve_cwes: 'cve_cwes.parquet',
  cwes: 'cwes.parquet',
  kev: 'kev.parquet',
  related_keys: 'related_keys.parquet',
  search_docs: 'search_docs.parquet',
  search_terms: 'search_terms.parquet',
  search_term_stats: 'search_term_stats.parquet',
  summary: 'summary.parquet',
  trends_weekly: 'trends_weekly.parquet',
  trends_monthly: 'trends_monthly.parquet',
  changes: 'changes.parquet',
};

/**
 * The partition column of a hive-partitioned table and its type as read: not stored in the
 * files, it comes last in what a reader sees.
 */
export const HIVE_PARTITIONS: Record<string, { column: string; type: string }> = {
  cves: { column: 'year', type: 'INTEGER' },
};

/** DuckDB SQL that reads one snapshot table (hive partitioning keeps `year` typed). */
export function tableReader(snapshotDir: string, table: string): string {
  const rel = SNAPSHOT_TABLES[table];
  if (!rel) throw new Error(`unknown snapshot table ${table}`);
  const path = join(snapshotDir, rel).replaceAll("'", "''");
  const partition = HIVE_PARTITIONS[table];
  return partition
    ? `read_parquet('${path}', hive_partitioning = true, hive_types = {'${partition.column}': ${partition.type}})`
    : `read_parquet('${path}')`;
}
