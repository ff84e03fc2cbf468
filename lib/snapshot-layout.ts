/**
 * Where snapshots live (DESIGN §4): `<data>/snapshots/<build-id>/…` and `<data>/CURRENT`
 * naming the published one. Shared by the build (writer), the server and `vulnintel sql`.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from './errors.ts';

export const SNAPSHOT_SCHEMA_VERSION = 1;

export function snapshotsDir(dataDir: string): string {
  return join(dataDir, 'snapshots');
}

export function currentPointer(dataDir: string): string {
  return join(dataDir, 'CURRENT');
}

/**
 * A build id as the build writes one (`20261121T031500Z-3fa9`, newBuildId) or as a test names
 * its snapshot: one folder name, never a path or `..`.
 */
const BUILD_ID = /^[0-9A-Za-z][0-9A-Za-z._-]*$/;

/** A build id as newBuildId (cli/build/build.ts) writes one: the UTC time it was built, then a random tail. */
const WRITTEN_BUILD_ID = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z-[0-9a-f]{4}$/;

/**
 * When a build id as the build writes one (`20261121T031500Z-3fa9`) was built, in ms since the
 * epoch; null for any other id (a test's own snapshot name, a client's guess). The change
 * feed's cursor and the stream's position carry such ids, and read them with this.
 */
export function buildTimeOf(buildId: string): number | null {
  const m = WRITTEN_BUILD_ID.exec(buildId);
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : null;
}

/**
 * The published build id, or null when nothing is published yet. CURRENT holding anything but
 * a build id (a path, `..`, a stray second line, a damaged write) names no snapshot: it is an
 * error naming the file, never read as a folder, so no reader serves, scans or compares against
 * whatever such a path reaches.
 */
export async function readCurrentBuildId(dataDir: string): Promise<string | null> {
  const pointer = currentPointer(dataDir);
  let id: string;
  try {
    id = (await readFile(pointer, 'utf8')).trim();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    // Node's EISDIR (a folder named CURRENT) names no path, so it was no file system error to
    // the CLI: sql, scan and build stopped with a stack trace (scan with exit 1, its code for
    // findings). Other refusals name the path and are shown as they are.
    if (code !== 'EISDIR') throw err;
    throw new CliError(`${pointer}: cannot be read as the file naming the published snapshot (${(err as Error).message})`);
  }
  if (id === '') return null;
  if (!BUILD_ID.test(id) || id.includes('..')) {
    throw new CliError(`${pointer}: ${JSON.stringify(id.slice(0, 80))} is not a build id (run \`vulnintel build\` to publish one)`);
  }
  return id;
}

/** Parquet tables of a snapshot, by view name. `cves` is a hive-partitioned folder. */
export const SNAPSHOT_TABLES: Record<string, string> = {
  cves: 'cves/*/*.parquet',
  affected_packages: 'affected_packages.parquet',
  advisory_packages: 'advisory_packages.parquet',
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
