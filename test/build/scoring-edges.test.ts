/**
 * DESIGN §5 rules the golden file (scoring.test.ts) leaves unpinned, each computed by hand from
 * the DESIGN text: an exploited CVE nobody has scored, risk rounding at a half and just below one, vendor band before GHSA band, and escalation caps.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { builtCveRows, type CveRow } from '../helpers/sample-snapshot.ts';
import { NVD, writeCorpus, type Corpus } from '../helpers/raw-corpus.ts';

const LOCAL = 'CVSS:3.1/AV:L/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N';
const v3 = (score: number) => ({ version: '3.1' as const, source: NVD, vector: LOCAL, score });

const corpus: Corpus = {
  nvd: [
    // In KEV, but no source has scored it yet.
    { id: 'CVE-2024-20001', vulnStatus: 'Received' },
    { id: 'CVE-2024-20002', metrics: [v3(7.3)] },
    { id: 'CVE-2024-20003', metrics: [v3(9.5)] },
    { id: 'CVE-2024-20004', vulnStatus: 'Received' },
    { id: 'CVE-2024-20005', metrics: [v3(9.8)] },
    { id: 'CVE-2024-20006', metrics: [v3(5.5)] },
  ],
  kev: [
    { id: 'CVE-2024-20001', dateAdded: '2025-01-01' },
    { id: 'CVE-2024-20003', dateAdded: '2025-01-02' },
  ],
  // An EPSS probability with more digits than today's five (the parser takes any precision).
  epss: [['CVE-2024-20005', 0.5], ['CVE-2024-20006', 0.002499]],
  ghsa: [{ id: 'GHSA-2000-4000-6000', cve: 'CVE-2024-20004', band: 'CRITICAL' }],
  csaf: { redhat: [{ trackingId: 'RHSA-2025:2004', cve: 'CVE-2024-20004', severityText: 'Important' }] },
};

type Row = CveRow;
let rows: Map<string, Row>;

beforeAll(async () => {
  rows = await builtCveRows(await writeCorpus(corpus));
});

const cve = (id: string): Row => {
  const r = rows.get(id);
  if (!r) throw new Error(`${id} missing from the snapshot`);
  return r;
};

describe('DESIGN §5 edges', () => {
  it('an exploited CVE with no severity data stays unassessed, and its risk is exploitation alone: 100 × 0.40 × 1.0 = 40.0', () => {
    const r = cve('CVE-2024-20001');
    expect([r.score_assessed, r.score_unassessed_reason, r.service_score, r.service_severity, r.score_confidence]).toEqual([false, 'no_signal', 0, 'NONE', 'NONE']);
    expect(r.score_factors.rule_triggered).toEqual(['no_signal']);
    expect(r.service_risk).toBe(40);
    // SSVC fallbacks: active (KEV), not automatable (no vector), partial → Track at M&WB medium.
    expect(r.service_ssvc_decision).toBe('Track');
  });

  it('rounds risk half-up: 100 × (0.45 × 0.73 + 0.15 × 0.1) = 34.35 → 34.4', () => {
    expect(cve('CVE-2024-20002').service_risk).toBe(34.4);
  });

  it('rounds risk once, from its exact value: 100 × (0.45 × 0.55 + 0.40 × 0.002499 + 0.15 × 0.1) = 26.34996 → 26.3', () => {
    expect(cve('CVE-2024-20006').service_risk).toBe(26.3);
  });

  it('KEV on a 9.5 base: min(10, 9.5 + 1.0) = 10.0; risk 45 + 40 + 1.5 = 86.5', () => {
    const r = cve('CVE-2024-20003');
    expect([r.service_score, r.service_severity, r.service_risk]).toEqual([10, 'CRITICAL', 86.5]);
    expect(r.score_factors.rule_triggered).toEqual(['cvss_v3', 'kev_escalation']);
  });

  it('a vendor band comes before a GHSA band (step 2e before 2f), and its confidence stays LOW with two signals', () => {
    const r = cve('CVE-2024-20004');
    expect([r.service_score, r.vendor_severity, r.score_confidence]).toEqual([7.5, 'HIGH', 'LOW']);
    expect(r.score_factors.rule_triggered).toEqual(['vendor_severity']);
  });

  it('EPSS ≥ 0.50 on 9.8 is capped at 10', () => {
    const r = cve('CVE-2024-20005');
    expect(r.service_score).toBe(10);
    expect(r.score_factors.rule_triggered).toEqual(['cvss_v3', 'epss_escalation']);
  });
});
