/**
 * The bundled sample corpus against `data/sample/expected.json`: values computed by hand from
 * DESIGN §5 by someone other than the author of the SQL, one CVE at a time. Fields the
 * expectations mark `ambiguous` are the corpus author's reading of an undecided rule and are
 * still compared (the build follows the same reading), so a change there is noticed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { readCurrentBuildId, snapshotsDir, tableReader } from '../../lib/snapshot-layout.ts';
import { buildCorpus, SAMPLE_RAW } from '../helpers/sample-snapshot.ts';

interface Expected {
  service_score: number;
  score_assessed: boolean;
  score_unassessed_reason: string | null;
  service_severity: string;
  severity: string;
  cvss_v3_score: number;
  service_ssvc_decision: string;
  score_confidence: string;
  exploit_poc_available: boolean;
  kev: boolean;
  rule: string;
  escalation: string | null;
}

const expected = JSON.parse(readFileSync(join(SAMPLE_RAW, 'expected.json'), 'utf8')) as { cves: Record<string, Expected> };
let rows: Map<string, Record<string, any>>;

beforeAll(async () => {
  const { dataDir } = await buildCorpus();
  const id = await readCurrentBuildId(dataDir);
  const db = await (await DuckDBInstance.create(':memory:')).connect();
  const reader = await db.runAndReadAll(`SELECT * FROM ${tableReader(join(snapshotsDir(dataDir), id!), 'cves')}`);
  rows = new Map((reader.getRowObjectsJson() as Record<string, any>[]).map((r) => [r.cve_id as string, r]));
});

describe('sample corpus matches its hand-computed expectations', () => {
  it('contains exactly the expected CVEs', () => {
    expect([...rows.keys()].sort()).toEqual(Object.keys(expected.cves).sort());
  });

  for (const [cveId, exp] of Object.entries(expected.cves)) {
    it(`${cveId}: ${exp.rule}${exp.escalation ? ` + ${exp.escalation}` : ''}`, () => {
      const r = rows.get(cveId);
      expect(r, `${cveId} missing`).toBeDefined();
      const rules: string[] = r!.score_factors.rule_triggered;
      expect({
        service_score: r!.service_score,
        score_assessed: r!.score_assessed,
        score_unassessed_reason: r!.score_unassessed_reason,
        service_severity: r!.service_severity,
        severity: r!.severity,
        cvss_v3_score: r!.cvss_v3_score,
        service_ssvc_decision: r!.service_ssvc_decision,
        score_confidence: r!.score_confidence,
        exploit_poc_available: r!.exploit_poc_available,
        kev: r!.in_kev,
        rule: rules[0],
        escalation: rules.find((x) => x.endsWith('_escalation')) ?? null,
      }).toEqual({
        service_score: exp.service_score,
        score_assessed: exp.score_assessed,
        score_unassessed_reason: exp.score_unassessed_reason,
        service_severity: exp.service_severity,
        severity: exp.severity,
        cvss_v3_score: exp.cvss_v3_score,
        service_ssvc_decision: exp.service_ssvc_decision,
        score_confidence: exp.score_confidence,
        exploit_poc_available: exp.exploit_poc_available,
        kev: exp.kev,
        rule: exp.rule,
        escalation: exp.escalation,
      });
    });
  }
});
