/**
 * The change step (sql/10_changes.sql, PULSE §2): two consecutive builds of the sample corpus,
 * the second with known upstream differences (test/helpers/changes-corpus.ts), produce exactly
 * the expected change rows; a first build and a rebuild with no difference record nothing new.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHANGE_COLUMNS, CHANGE_KINDS } from '../../lib/changes/model.ts';
import { buildChangesCorpus, type ChangesCorpus, rebuild } from '../helpers/changes-corpus.ts';

async function readChanges(snapshotDir: string): Promise<Record<string, any>[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const reader = await connection.runAndReadAll(
      `SELECT *, strftime(detected_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS detected FROM read_parquet('${join(snapshotDir, 'changes.parquet')}')`,
    );
    return reader.getRowObjectsJson() as Record<string, any>[];
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

const TITLE_90114 = 'Improper neutralization of expression language in Apache Syncope before 4.0.3 allows an administrator, when an authenticated user opens a crafted report temp...';

/** subject, kind, before, after, why — every row the second build must record, nothing else. */
const EXPECTED: Array<[string, string, string | null, string | null, string]> = [
  ['CVE-2025-90308', 'kev_added', '{"in_kev":false,"service_risk":41.3}', '{"in_kev":true,"kev_added_date":"2026-11-23","service_risk":85.8}', 'Added to CISA KEV on 2026-11-23: service risk 41.3 → 85.8.'],
  ['CVE-2025-90308', 'risk_changed', '{"service_risk":41.3}', '{"service_risk":85.8}', 'Service risk 41.3 → 85.8: added to CISA KEV on 2026-11-23.'],
  ['CVE-2025-90308', 'score_changed', '{"service_score":7.5}', '{"service_score":8.5}', 'Service score 7.5 → 8.5: added to CISA KEV on 2026-11-23.'],
  ['CVE-2025-90308', 'ssvc_changed', '{"service_ssvc_decision":"Track"}', '{"service_ssvc_decision":"Attend"}', 'SSVC decision Track → Attend: added to CISA KEV on 2026-11-23.'],
  ['CVE-2026-90114', 'epss_crossed', '{"epss_score":0.49999}', '{"epss_score":0.61}', 'EPSS rose above 0.50: 0.49999 → 0.61, service risk 61.5 → 68.2.'],
  ['CVE-2026-90114', 'score_changed', '{"service_score":8.9}', '{"service_score":9.4}', 'Service score 8.9 → 9.4: EPSS 0.49999 → 0.61.'],
  ['CVE-2026-90114', 'severity_changed', '{"service_severity":"HIGH","service_score":8.9}', '{"service_severity":"CRITICAL","service_score":9.4}', 'Service severity HIGH → CRITICAL (score 8.9 → 9.4): EPSS 0.49999 → 0.61.'],
  ['CVE-2026-90116', 'rejected', '{"status":"active","service_severity":"HIGH","service_score":8.9,"service_risk":41.6}', '{"status":"rejected"}', 'Rejected by its CNA or NVD: no longer a vulnerability (was HIGH 8.9, risk 41.6).'],
  ['CVE-2026-90141', 'cvss_changed', '{"cvss_v3_score":7.8,"cvss_v3_vector":"CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H"}', '{"cvss_v3_score":9.8,"cvss_v3_vector":"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"}', 'CVSS v3 in force 7.8 (CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H) → 9.8 (CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H).'],
  ['CVE-2026-90141', 'risk_changed', '{"service_risk":36.6}', '{"service_risk":51.6}', 'Service risk 36.6 → 51.6: CVSS v3 7.8 → 9.8.'],
  ['CVE-2026-90141', 'score_changed', '{"service_score":7.8}', '{"service_score":9.8}', 'Service score 7.8 → 9.8: CVSS v3 7.8 → 9.8.'],
  ['CVE-2026-90141', 'severity_changed', '{"service_severity":"HIGH","service_score":7.8}', '{"service_severity":"CRITICAL","service_score":9.8}', 'Service severity HIGH → CRITICAL (score 7.8 → 9.8): CVSS v3 7.8 → 9.8.'],
  ['CVE-2026-90401', 'new_cve', null, '{"service_severity":"CRITICAL","service_score":9.8,"service_risk":51.6,"in_kev":false}', 'New CVE published 2026-11-22: service severity CRITICAL (score 9.8), risk 51.6.'],
  ['cisco/cisco-sa-asaftd-ssl-dos-Xq7bRt2', 'advisory_linked', '{"cve_ids":[]}', '{"cve_ids":["CVE-2026-90401"]}', 'Advisory cisco cisco-sa-asaftd-ssl-dos-Xq7bRt2 now names CVE-2026-90401 (published before a CVE existed).'],
  ['cisco/cisco-sa-ios-cdp-dos-Pq3v9Ks', 'new_advisory', null, '{"vendor_severity":"MEDIUM","cve_ids":[]}', 'New cisco advisory cisco-sa-ios-cdp-dos-Pq3v9Ks (MEDIUM), no CVE assigned yet: Cisco IOS XE Software CDP Denial of Service Vulnerability.'],
];

function subjectOf(row: Record<string, any>): string {
  return row.subject_type === 'cve' ? row.cve_id : `${row.vendor}/${row.advisory_id}`;
}

describe('change step: two consecutive builds', () => {
  let corpus: ChangesCorpus;
  let rows: Record<string, any>[];
  beforeAll(async () => {
    corpus = await buildChangesCorpus();
    rows = await readChanges(corpus.second.snapshotDir);
  }, 180_000);

  it('records nothing on the very first build', async () => {
    expect(await readChanges(corpus.first.snapshotDir)).toEqual([]);
    expect(corpus.first.counts.changes).toBe(0);
  });

  it('records exactly the expected kinds, subjects, before/after and why', () => {
    const got = rows
      .map((r) => [subjectOf(r), r.kind, r.before, r.after, r.why] as [string, string, string | null, string | null, string])
      .sort((a, b) => (a[0] + a[1] < b[0] + b[1] ? -1 : 1));
    expect(got).toEqual(EXPECTED);
    expect(corpus.second.counts.changes_this_build).toBe(EXPECTED.length);
    for (const r of rows) expect(CHANGE_KINDS).toContain(r.kind);
  });

  it('writes the model columns in order, stamps the build and derives a stable change_id', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    const columns = (await connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${join(corpus.second.snapshotDir, 'changes.parquet')}')`))
      .getRowObjectsJson()
      .map((r) => [r.column_name, r.column_type]);
    connection.closeSync();
    instance.closeSync();
    expect(columns).toEqual(CHANGE_COLUMNS.map(([n, t]) => [n, t]));
    const buildTime = corpus.second.buildId.slice(0, 15);
    for (const r of rows) {
      expect(r.build_id).toBe(corpus.second.buildId);
      expect(r.detected.replace(/[-:]/g, '').slice(0, 15)).toBe(buildTime);
      const subject = r.subject_type === 'cve' ? r.cve_id : `${r.vendor}/${r.advisory_id}`;
      expect(r.change_id).toBe(createHash('sha256').update(`${r.build_id}|${r.subject_type}|${subject}|${r.kind}`).digest('hex').slice(0, 24));
    }
    expect(new Set(rows.map((r) => r.change_id)).size).toBe(rows.length);
  });

  it('carries the brief of the subject for matching without joins', () => {
    const epss = rows.find((r) => r.cve_id === 'CVE-2026-90114' && r.kind === 'epss_crossed')!;
    expect(epss).toMatchObject({
      subject_type: 'cve', vendor: null, advisory_id: null, title: TITLE_90114, service_severity: 'CRITICAL', service_score: 9.4,
      service_risk: 68.2, in_kev: false, epss_score: 0.61, vendors: ['apache'], products: ['apache:syncope'], cwe_ids: ['CWE-917'],
    });
    const fresh = rows.find((r) => r.kind === 'new_cve')!;
    expect(fresh).toMatchObject({ vendors: ['cisco'], products: ['cisco:adaptive_security_appliance_software'], cwe_ids: ['CWE-787'], vendor_severity: 'HIGH' });
    const advisory = rows.find((r) => r.kind === 'new_advisory')!;
    expect(advisory).toMatchObject({
      subject_type: 'advisory', cve_id: null, vendor: 'cisco', vendor_severity: 'MEDIUM', service_severity: null, service_risk: null, in_kev: null,
      vendors: ['cisco'], title: 'Cisco IOS XE Software CDP Denial of Service Vulnerability',
    });
    expect(rows.find((r) => r.kind === 'advisory_linked')!.cve_id).toBe('CVE-2026-90401');
  });

  it('stores the newest build first, then by change_id', () => {
    const ids = rows.map((r) => r.change_id);
    expect(ids).toEqual([...ids].sort());
  });

  it('a rebuild with no upstream difference records nothing new and carries the history', async () => {
    const third = await rebuild(corpus);
    expect(third.counts.changes_this_build).toBe(0);
    const history = await readChanges(third.snapshotDir);
    expect(history.map((r) => r.change_id).sort()).toEqual(rows.map((r) => r.change_id).sort());
    expect(history.every((r) => r.build_id === corpus.second.buildId)).toBe(true);
  }, 120_000);
});
