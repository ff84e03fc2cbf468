/**
 * The change step (sql/10_changes.sql) run on hand-made states, so a test can hit an edge
 * exactly: `cves` and `prev_cves` from rows the test writes, every side table the step reads
 * empty, no published snapshot but the hand-made previous one.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { attachPreviousSnapshot } from '../../cli/build/previous-snapshot.ts';
import { runSqlStep } from '../../cli/build/sql-steps.ts';

/** The columns of `cves` and `prev_cves` the step reads, in the order a test's VALUES rows give them. */
export const CHANGE_CVE_COLUMNS = `cve_id, status, in_kev, kev_added_date, service_severity, service_score, service_risk, epss_score, exploit_count,
  score_unassessed_reason, score_assessed, cvss_v3_score, cvss_v3_vector, service_ssvc_decision, published, title,
  kev_vulnerability_name, description, vendor_severity, cwe_ids`;

export interface ChangeStepRow {
  cve_id: string;
  kind: string;
  why: string;
}

/**
 * The changes the step records between `before` (prev_cves) and `after` (cves), each a list of
 * VALUES rows of CHANGE_CVE_COLUMNS, ordered by CVE and kind.
 */
export async function changeStepRows(before: string[], after: string[]): Promise<ChangeStepRow[]> {
  const out = await mkdtemp(join(tmpdir(), 'vulnintel-change-step-'));
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await attachPreviousSnapshot(connection, null);
    await connection.run(`CREATE TABLE cves AS SELECT * FROM (VALUES ${after.join(', ')}) v(${CHANGE_CVE_COLUMNS})`);
    await connection.run(`DROP TABLE prev_cves`);
    await connection.run(`CREATE TABLE prev_cves AS SELECT * FROM (VALUES ${before.join(', ')}) v(${CHANGE_CVE_COLUMNS})`);
    await connection.run(`CREATE TABLE products (cve_id VARCHAR, vendor_key VARCHAR, product_key VARCHAR)`);
    await connection.run(`CREATE TABLE affected_packages (cve_id VARCHAR, ecosystem VARCHAR, package_name VARCHAR)`);
    await connection.run(`CREATE TABLE advisories (vendor VARCHAR, advisory_id VARCHAR, cve_ids VARCHAR[], vendor_severity VARCHAR, title VARCHAR)`);
    await connection.run(`CREATE TABLE advisory_cves (vendor VARCHAR, advisory_id VARCHAR, cwe_id VARCHAR)`);
    await runSqlStep(connection, '10_changes.sql', { has_previous: 'true', build_id: '20261127T000000Z-test', detected_at: '2026-11-27 00:00:00', out });
    const rows = (await connection.runAndReadAll(`SELECT cve_id, kind, why FROM changes_new ORDER BY cve_id, kind`)).getRowObjectsJson();
    return rows.map((row) => ({ cve_id: String(row.cve_id), kind: String(row.kind), why: String(row.why) }));
  } finally {
    connection.closeSync();
    instance.closeSync();
    await rm(out, { recursive: true, force: true });
  }
}
