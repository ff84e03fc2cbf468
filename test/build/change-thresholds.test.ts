/**
 * The thresholds of the change step (sql/10_changes.sql, PULSE §2) on hand-made states, so each
 * edge is hit exactly: `score_changed` at |Δ service_score| ≥ 0.5, `risk_changed` at
 * |Δ service_risk| ≥ 10. Scores and risks are one-decimal DOUBLEs, whose differences are not
 * exact (8.2 − 7.7 is 0.49999999999999911 in binary): a move of exactly 0.5 or 10 counts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { changeStepRows } from '../helpers/change-step.ts';

/** cve_id, old score, new score, old risk, new risk, and old and new EPSS (none when absent; severity, KEV… unchanged). */
type Move = [string, number, number, number, number, (number | null)?, (number | null)?];

const MOVES: Move[] = [
  ['CVE-2026-0001', 7.7, 8.2, 40, 40], // Δ score 0.5, not exact in binary
  ['CVE-2026-0002', 0.9, 1.4, 20, 20], // the same, in the LOW band
  ['CVE-2026-0003', 7.1, 7.5, 40, 40], // Δ 0.4: below the threshold
  ['CVE-2026-0004', 5, 5, 6.4, 16.4], // Δ risk 10, not exact in binary
  ['CVE-2026-0005', 5, 5, 16.9, 6.9], // the same, downwards
  ['CVE-2026-0006', 5, 5, 30, 39.9], // Δ 9.9: below the threshold
  ['CVE-2026-0007', 5, 5, 30, 30, 0.00004, 0.2], // EPSS below 0.0001, which DuckDB writes as 4e-05
];

const severityOf = (score: number) => (score >= 9 ? 'CRITICAL' : score >= 7 ? 'HIGH' : score >= 4 ? 'MEDIUM' : 'LOW');

function cveRow(id: string, score: number, risk: number, epss: number | null = null): string {
  return `('${id}', 'active', false, NULL::DATE, '${severityOf(score)}', ${score}::DOUBLE, ${risk}::DOUBLE, ${epss ?? 'NULL'}::DOUBLE, 0, NULL::VARCHAR, true,
           NULL::DOUBLE, NULL::VARCHAR, 'Track', TIMESTAMP '2026-01-01', 'title of ${id}', NULL::VARCHAR, 'description', NULL::VARCHAR, ['CWE-79'])`;
}

describe('change step: score and risk thresholds', () => {
  let kinds: Map<string, string[]>;
  let whys: Map<string, string>;
  beforeAll(async () => {
    const rows = await changeStepRows(
      MOVES.map((m) => cveRow(m[0], m[1], m[3], m[5] ?? null)),
      MOVES.map((m) => cveRow(m[0], m[2], m[4], m[6] ?? null)),
    );
    kinds = new Map();
    whys = new Map();
    for (const row of rows) {
      kinds.set(row.cve_id, [...(kinds.get(row.cve_id) ?? []), row.kind]);
      whys.set(`${row.cve_id} ${row.kind}`, row.why);
    }
  });

  it('records score_changed for a move of exactly 0.5, not for 0.4', () => {
    expect(kinds.get('CVE-2026-0001')).toEqual(['score_changed']);
    expect(kinds.get('CVE-2026-0002')).toEqual(['score_changed']);
    expect(kinds.get('CVE-2026-0003')).toBeUndefined();
  });

  it('records risk_changed for a move of exactly 10, either way, not for 9.9', () => {
    expect(kinds.get('CVE-2026-0004')).toEqual(['risk_changed']);
    expect(kinds.get('CVE-2026-0005')).toEqual(['risk_changed']);
    expect(kinds.get('CVE-2026-0006')).toBeUndefined();
  });

  it('writes a small EPSS in its sentence as a decimal, not in scientific notation', () => {
    expect(kinds.get('CVE-2026-0007')).toEqual(['epss_crossed']);
    expect(whys.get('CVE-2026-0007 epss_crossed')).toBe('EPSS rose above 0.10: 0.00004 → 0.2, service risk 30 → 30.');
  });
});
