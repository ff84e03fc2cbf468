/**
 * The sentences (`why`) of the change step (sql/10_changes.sql, PULSE §2) around the assessment
 * states, on hand-made states: a score of an unassessed record is a 0 placeholder, not a rating
 * (contract: `score_assessed`), and a rejection undone is said as such.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { changeStepRows } from '../helpers/change-step.ts';

interface State { status: 'active' | 'rejected'; unassessed: 'no_signal' | 'rejected' | null; severity: string; score: number; risk: number; v3: number | null }

const ASSESSED: State = { status: 'active', unassessed: null, severity: 'HIGH', score: 7.5, risk: 40, v3: 7.5 };
const NO_SIGNAL: State = { status: 'active', unassessed: 'no_signal', severity: 'NONE', score: 0, risk: 10, v3: null };
const REJECTED: State = { status: 'rejected', unassessed: 'rejected', severity: 'NONE', score: 0, risk: 0, v3: 0 };

/** cve_id, the previous state, the new one. */
const CASES: Array<[string, State, State]> = [
  ['CVE-2026-0001', NO_SIGNAL, REJECTED], // never assessed, then rejected
  ['CVE-2026-0002', ASSESSED, REJECTED], // assessed, then rejected
  ['CVE-2026-0003', REJECTED, ASSESSED], // the rejection undone
];

function cveRow(id: string, s: State): string {
  const vector = s.v3 ? `'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N'` : 'NULL';
  return `('${id}', '${s.status}', false, NULL::DATE, '${s.severity}', ${s.score}::DOUBLE, ${s.risk}::DOUBLE, NULL::DOUBLE, 0,
           ${s.unassessed ? `'${s.unassessed}'` : 'NULL'}::VARCHAR, ${s.unassessed === null}, ${s.v3 ?? 'NULL'}::DOUBLE, ${vector}::VARCHAR, 'Track',
           TIMESTAMP '2026-01-01', 'title of ${id}', NULL::VARCHAR, 'description', NULL::VARCHAR, ['CWE-79'])`;
}

describe('change step: sentences around the assessment states', () => {
  let whys: Map<string, string>;
  beforeAll(async () => {
    const rows = await changeStepRows(
      CASES.map(([id, before]) => cveRow(id, before)),
      CASES.map(([id, , now]) => cveRow(id, now)),
    );
    whys = new Map(rows.map((row) => [`${row.cve_id} ${row.kind}`, row.why]));
  });

  it('says a rejected record that was never assessed was not assessed, not that it was NONE 0', () => {
    expect(whys.get('CVE-2026-0001 rejected')).toBe('Rejected by its CNA or NVD: no longer a vulnerability (was not assessed yet).');
    expect(whys.get('CVE-2026-0002 rejected')).toBe('Rejected by its CNA or NVD: no longer a vulnerability (was HIGH 7.5, risk 40).');
  });

  it('gives a rejection undone as the cause of the moves it brings, not the placeholder CVSS it replaces', () => {
    expect(whys.get('CVE-2026-0003 severity_changed')).toBe('Service severity NONE → HIGH (score 0 → 7.5): no longer rejected.');
    expect(whys.get('CVE-2026-0003 score_changed')).toBe('Service score 0 → 7.5: no longer rejected.');
    expect(whys.get('CVE-2026-0003 risk_changed')).toBe('Service risk 0 → 40: no longer rejected.');
  });
});
