/**
 * The previously published snapshot as the change step (sql/10_changes.sql) reads it: views
 * `prev_cves`, `prev_advisories` and `prev_changes` over its Parquet files. On a first build
 * (or when the predecessor predates a table) they are empty tables of the same shape, so the
 * SQL step reads the same names either way.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { CHANGE_COLUMNS } from '../../lib/changes/model.ts';
import { readCurrentBuildId, snapshotsDir, SNAPSHOT_TABLES, tableReader } from '../../lib/snapshot-layout.ts';

/** The columns of the predecessor's tables that the change step compares, with their types. */
const PREV_CVE_COLUMNS: Array<[string, string]> = [
  ['cve_id', 'VARCHAR'], ['status', 'VARCHAR'], ['in_kev', 'BOOLEAN'], ['service_severity', 'VARCHAR'],
  ['service_score', 'DOUBLE'], ['service_risk', 'DOUBLE'], ['epss_score', 'DOUBLE'], ['exploit_count', 'INTEGER'],
  ['score_unassessed_reason', 'VARCHAR'], ['cvss_v3_score', 'DOUBLE'], ['cvss_v3_vector', 'VARCHAR'],
  ['service_ssvc_decision', 'VARCHAR'],
];
const PREV_ADVISORY_COLUMNS: Array<[string, string]> = [['vendor', 'VARCHAR'], ['advisory_id', 'VARCHAR'], ['cve_ids', 'VARCHAR[]']];

function names(columns: ReadonlyArray<readonly [string, string]>): string {
  return columns.map(([n]) => `"${n}"`).join(', ');
}

function ddl(columns: ReadonlyArray<readonly [string, string]>): string {
  return columns.map(([n, t]) => `"${n}" ${t}`).join(', ');
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(() => true, () => false);
}

/** The published snapshot a new build compares with, or null on a first build. */
export async function previousSnapshotDir(dataDir: string): Promise<string | null> {
  const id = await readCurrentBuildId(dataDir);
  if (id === null) return null;
  const dir = join(snapshotsDir(dataDir), id);
  return (await exists(join(dir, SNAPSHOT_TABLES.advisories!))) ? dir : null;
}

/** Creates the `prev_*` relations on the build's connection, before the SQL steps run. */
export async function attachPreviousSnapshot(connection: DuckDBConnection, previousDir: string | null): Promise<void> {
  if (previousDir) {
    await connection.run(`CREATE VIEW prev_cves AS SELECT ${names(PREV_CVE_COLUMNS)} FROM ${tableReader(previousDir, 'cves')}`);
    await connection.run(`CREATE VIEW prev_advisories AS SELECT ${names(PREV_ADVISORY_COLUMNS)} FROM ${tableReader(previousDir, 'advisories')}`);
  } else {
    await connection.run(`CREATE TABLE prev_cves (${ddl(PREV_CVE_COLUMNS)})`);
    await connection.run(`CREATE TABLE prev_advisories (${ddl(PREV_ADVISORY_COLUMNS)})`);
  }
  if (previousDir && (await exists(join(previousDir, SNAPSHOT_TABLES.changes!)))) {
    await connection.run(`CREATE VIEW prev_changes AS SELECT ${names(CHANGE_COLUMNS)} FROM ${tableReader(previousDir, 'changes')}`);
  } else {
    await connection.run(`CREATE TABLE prev_changes (${ddl(CHANGE_COLUMNS)})`);
  }
}
