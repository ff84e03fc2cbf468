/**
 * Golden tests of DESIGN §5: one crafted CVE per scoring rule and per boundary, written as
 * real raw records, built through the whole pipeline, read back from the published Parquet.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { builtCveRows, type CveRow } from '../helpers/sample-snapshot.ts';
import { NVD, writeCorpus, type Corpus } from '../helpers/raw-corpus.ts';

const NET = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
const LOCAL = 'CVSS:3.1/AV:L/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N';
const NET_PARTIAL = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N';
const V2_FULL = 'AV:N/AC:L/Au:N/C:C/I:C/A:C';
const V4 = 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N';
const CNA = 'cna@example.com';

const v3 = (score: number, source = NVD, vector = LOCAL) => ({ version: '3.1' as const, source, vector, score });

const corpus: Corpus = {
  nvd: [
    { id: 'CVE-2024-10001', metrics: [v3(7.5)] },
    // Freshest rule, both directions (CNA times come from the CVE 5 container below).
    { id: 'CVE-2024-10002', lastModified: '2024-06-01T10:00:00.000', metrics: [v3(7.5), v3(9.4, CNA)] },
    { id: 'CVE-2024-10003', lastModified: '2024-06-01T10:00:00.000', metrics: [v3(7.5), v3(9.4, CNA)] },
    // The CNA's metric only through NVD: same time as NVD's → NVD wins the tie.
    { id: 'CVE-2024-10004', metrics: [v3(7.5), v3(9.4, CNA)] },
    { id: 'CVE-2024-10005', metrics: [v3(8.8), v3(8.8, CNA)] },
    { id: 'CVE-2024-10006', metrics: [{ version: '4.0', source: CNA, vector: V4, score: 9.2 }] },
    { id: 'CVE-2024-10007', vulnStatus: 'Awaiting Analysis' },
    { id: 'CVE-2024-10008', published: '2008-01-01T00:00:00.000', metrics: [{ version: '2.0', source: NVD, vector: V2_FULL, score: 10.0 }] },
    { id: 'CVE-2024-10009', vulnStatus: 'Received', sourceIdentifier: 'secalert@redhat.com' },
    { id: 'CVE-2024-10010', vulnStatus: 'Received' },
    { id: 'CVE-2024-10011', vulnStatus: 'Received' },
    { id: 'CVE-2024-10012', vulnStatus: 'Rejected', description: '** REJECT ** Duplicate.' },
    { id: 'CVE-2024-10013', metrics: [v3(9.8, NVD, NET)] },
    { id: 'CVE-2024-10014', metrics: [v3(5.0)] },
    { id: 'CVE-2024-10015', metrics: [v3(9.5)] },
    { id: 'CVE-2024-10016', metrics: [v3(6.5)] },
    { id: 'CVE-2024-10017', metrics: [v3(6.5)] },
    { id: 'CVE-2024-10018', metrics: [v3(8.0)] },
    { id: 'CVE-2024-10019', metrics: [v3(8.0)] },
    { id: 'CVE-2024-10020', metrics: [v3(8.9)] },
    { id: 'CVE-2024-10021', metrics: [v3(6.9)] },
    { id: 'CVE-2024-10022', metrics: [v3(0.1)] },
    { id: 'CVE-2024-10023', metrics: [v3(5.0, NVD, NET)] },
    { id: 'CVE-2024-10024', metrics: [v3(7.5, NVD, NET_PARTIAL)] },
    { id: 'CVE-2024-10025', metrics: [v3(3.5, NVD, NET_PARTIAL)] },
    { id: 'CVE-2024-10026', metrics: [{ version: '3.0', source: NVD, vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', score: 9.8 }, v3(6.1)] },
    { id: 'CVE-2024-10027', metrics: [v3(7.5, NVD, NET)], kevDateAdded: '2025-01-10' },
    // v2-only, the same network vector as 10008, but NVD says a user must interact.
    { id: 'CVE-2024-10028', published: '2008-01-01T00:00:00.000', metrics: [{ version: '2.0', source: NVD, vector: V2_FULL, score: 10.0, userInteractionRequired: true }] },
    // Ties every build must settle alike: two ADPs scoring alike in one NVD record (one time for
    // all its metrics), the greater vector listed first; two GHSA advisories alike, the lesser
    // id first (below).
    { id: 'CVE-2024-10029', metrics: [v3(7.5, 'adp-b@example.org', NET), v3(7.5, 'adp-a@example.org', LOCAL)] },
    { id: 'CVE-2024-10030', vulnStatus: 'Received' },
    { id: 'CVE-2024-10031', vulnStatus: 'Received' },
    // Vendor advisories of six vendors: named in sources_contributing in one order every build.
    { id: 'CVE-2024-10032', metrics: [v3(7.5)] },
  ],
  cve5: [
    { id: 'CVE-2024-10002', cnaDateUpdated: '2024-07-01T00:00:00.000Z', cnaMetrics: [{ version: '3.1', vector: LOCAL, score: 9.4 }] },
    { id: 'CVE-2024-10003', cnaDateUpdated: '2024-05-01T00:00:00.000Z', cnaMetrics: [{ version: '3.1', vector: LOCAL, score: 9.4 }] },
    { id: 'CVE-2024-10013', cnaDateUpdated: '2024-05-01T00:00:00.000Z', state: 'REJECTED' },
    { id: 'CVE-2024-10023', cnaDateUpdated: '2024-05-01T00:00:00.000Z', adpSsvc: { Exploitation: 'Active', Automatable: 'Yes', 'Technical Impact': 'Total' } },
    { id: 'CVE-2024-10025', cnaDateUpdated: '2024-05-01T00:00:00.000Z', adpSsvc: { Exploitation: 'poc', Automatable: 'yes', 'Technical Impact': 'partial' } },
  ],
  kev: [
    { id: 'CVE-2024-10014', dateAdded: '2025-01-01' },
    { id: 'CVE-2024-10015', dateAdded: '2025-01-02', ransomware: 'Known' },
  ],
  epss: [
    ['CVE-2024-10016', 0.1], ['CVE-2024-10017', 0.09999],
    ['CVE-2024-10018', 0.5], ['CVE-2024-10019', 0.49999],
    ['CVE-2024-10024', 0.3], ['CVE-2024-10001', 0.02],
    ['CVE-2024-10014', 0.9], ['CVE-2024-10002', 0.01],
  ],
  ghsa: [
    { id: 'GHSA-2222-3333-4444', cve: 'CVE-2024-10007', vector: NET_PARTIAL },
    { id: 'GHSA-5555-6666-7777', cve: 'CVE-2024-10010', band: 'MODERATE' },
    { id: 'GHSA-1111-aaaa-aaaa', cve: 'CVE-2024-10030', vector: NET_PARTIAL },
    { id: 'GHSA-9999-aaaa-aaaa', cve: 'CVE-2024-10030', vector: NET_PARTIAL },
    { id: 'GHSA-1111-bbbb-bbbb', cve: 'CVE-2024-10031', band: 'HIGH' },
    { id: 'GHSA-9999-bbbb-bbbb', cve: 'CVE-2024-10031', band: 'HIGH' },
  ],
  csaf: {
    redhat: [
      { trackingId: 'RHSA-2025:0001', cve: 'CVE-2024-10009', severityText: 'Important' },
      { trackingId: 'RHSA-2025:0032', cve: 'CVE-2024-10032', severityText: 'Important' },
    ],
    ...Object.fromEntries(['siemens', 'apple', 'cisco', 'oracle', 'microsoft'].map((v) => [v, [{ trackingId: `${v.toUpperCase()}-2025-0032`, cve: 'CVE-2024-10032', severityText: 'Important' }]])),
  },
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
const rules = (id: string): string[] => cve(id).score_factors.rule_triggered;
const record = (id: string) => JSON.parse(cve(id).record_json as string);

describe('service_score base (DESIGN §5.1 step 2)', () => {
  it('uses the NVD analyst v3 score when it is the only v3', () => {
    expect(cve('CVE-2024-10001')).toMatchObject({ service_score: 7.5, cvss_v3_score: 7.5, cvss_v3_source: 'nvd', severity: 'HIGH' });
    expect(rules('CVE-2024-10001')).toEqual(['cvss_v3']);
  });

  it('freshest rule: the CNA wins when its container is fresher than NVD', () => {
    expect(cve('CVE-2024-10002')).toMatchObject({ service_score: 9.4, cvss_v3_score: 9.4, cvss_v3_source: 'cna', severity: 'CRITICAL' });
    expect(rules('CVE-2024-10002')).toEqual(['cvss_v3_freshest']);
  });

  it('freshest rule: NVD wins when its record is fresher than the CNA container', () => {
    expect(cve('CVE-2024-10003')).toMatchObject({ service_score: 7.5, cvss_v3_source: 'nvd', severity: 'HIGH' });
    expect(rules('CVE-2024-10003')).toEqual(['cvss_v3_freshest']);
  });

  it('freshest rule: an equal modified time goes to the NVD analyst', () => {
    expect(cve('CVE-2024-10004')).toMatchObject({ service_score: 7.5, cvss_v3_source: 'nvd' });
  });

  it('agreeing NVD and CNA scores are plain cvss_v3', () => {
    expect(rules('CVE-2024-10005')).toEqual(['cvss_v3']);
    expect(cve('CVE-2024-10005').service_score).toBe(8.8);
  });

  it('prefers v3.1 over v3.0 from the same assessor', () => {
    expect(cve('CVE-2024-10026')).toMatchObject({ cvss_v3_score: 6.1, cvss_v3_version: '3.1', service_score: 6.1 });
  });

  it('falls back to CVSS v4.0', () => {
    expect(cve('CVE-2024-10006')).toMatchObject({ service_score: 9.2, cvss_v4_score: 9.2, cvss_v3_score: 0, severity: 'NONE' });
    expect(rules('CVE-2024-10006')).toEqual(['cvss_v4']);
  });

  it('falls back to a GHSA CVSS vector, scored by the library', () => {
    expect(cve('CVE-2024-10007')).toMatchObject({ service_score: 7.5, score_assessed: true });
    expect(rules('CVE-2024-10007')).toEqual(['ghsa_cvss']);
  });

  it('scores v2-only CVEs on v2, with cvss_v3_score 0 and no v3 label', () => {
    expect(cve('CVE-2024-10008')).toMatchObject({
      service_score: 10, cvss_v2_score: 10, cvss_v2_severity: 'HIGH', cvss_v3_score: 0, severity: 'NONE', max_cvss: 10,
    });
    expect(rules('CVE-2024-10008')).toEqual(['cvss_v2_only']);
  });

  it('maps a vendor severity band (HIGH → 7.5) with its source and exact evidence, confidence at most LOW', () => {
    const r = cve('CVE-2024-10009');
    expect(r).toMatchObject({ service_score: 7.5, vendor_severity: 'HIGH', vendor_severity_source: 'redhat', score_confidence: 'LOW' });
    expect(r.vendor_severity_evidence).toContain('Important');
    expect(rules('CVE-2024-10009')).toEqual(['vendor_severity']);
  });

  it('settles a tie between two metrics of one assessor alike in every build: the least vector', () => {
    expect(cve('CVE-2024-10029')).toMatchObject({ service_score: 7.5, cvss_v3_source: 'adp' });
    expect(cve('CVE-2024-10029').score_factors.cvss).toMatchObject({ vector: LOCAL, provider: 'adp-a@example.org' });
  });

  it('settles a tie between GHSA advisories alike in every build: the greatest advisory id', () => {
    expect(rules('CVE-2024-10030')).toEqual(['ghsa_cvss']);
    expect(cve('CVE-2024-10030').score_factors.cvss).toMatchObject({ provider: 'GHSA-9999-aaaa-aaaa', vector: NET_PARTIAL });
    expect(rules('CVE-2024-10031')).toEqual(['ghsa_severity']);
    expect(cve('CVE-2024-10031').score_factors.cvss).toMatchObject({ provider: 'GHSA-9999-bbbb-bbbb' });
  });

  it('maps a GHSA database band (MODERATE → 5.0)', () => {
    expect(cve('CVE-2024-10010')).toMatchObject({ service_score: 5, service_severity: 'MEDIUM' });
    expect(rules('CVE-2024-10010')).toEqual(['ghsa_severity']);
  });

  it('leaves a CVE with no signal unassessed: 0 placeholder, reason no_signal, severity NONE', () => {
    expect(cve('CVE-2024-10011')).toMatchObject({
      score_assessed: false, score_unassessed_reason: 'no_signal', service_score: 0, service_severity: 'NONE', score_confidence: 'NONE',
    });
    expect(record('CVE-2024-10011').score_unassessed_reason).toBe('no_signal');
  });

  it('suppresses a record rejected by NVD: reason rejected, score 0, risk 0', () => {
    expect(cve('CVE-2024-10012')).toMatchObject({
      score_assessed: false, score_unassessed_reason: 'rejected', service_score: 0, service_risk: 0, status: 'rejected',
    });
  });

  it('suppresses a record rejected in CVE 5 even when NVD still carries metrics', () => {
    expect(cve('CVE-2024-10013')).toMatchObject({ score_assessed: false, score_unassessed_reason: 'rejected', service_score: 0 });
    expect(rules('CVE-2024-10013')).toEqual(['rejected']);
  });

  it('omits score_unassessed_reason from the JSON of an assessed record', () => {
    expect('score_unassessed_reason' in record('CVE-2024-10001')).toBe(false);
    expect(record('CVE-2024-10001').score_assessed).toBe(true);
  });
});

describe('escalation and boundaries (DESIGN §5.1 steps 3–4)', () => {
  it('KEV raises a base below 7.0 to max(base, 7.0) + 1.0, and ignores EPSS', () => {
    expect(cve('CVE-2024-10014')).toMatchObject({ service_score: 8, in_kev: true, kev_added_date: '2025-01-01' });
    expect(rules('CVE-2024-10014')).toEqual(['cvss_v3', 'kev_escalation']);
  });

  it('KEV escalation is capped at 10', () => {
    expect(cve('CVE-2024-10015').service_score).toBe(10);
  });

  it('NVD’s KEV mirror alone counts as KEV', () => {
    expect(cve('CVE-2024-10027')).toMatchObject({ in_kev: true, service_score: 8.5, kev_added_date: '2025-01-10' });
  });

  it('svc_kev (CISA ADP Exploitation: active) escalates like KEV without being KEV', () => {
    expect(cve('CVE-2024-10023')).toMatchObject({ in_kev: false, svc_kev: true, service_score: 8 });
    expect(rules('CVE-2024-10023')).toContain('kev_escalation');
  });

  it('EPSS exactly 0.10 adds 0.5 (6.5 → 7.0, the HIGH edge)', () => {
    expect(cve('CVE-2024-10016')).toMatchObject({ service_score: 7, service_severity: 'HIGH' });
    expect(rules('CVE-2024-10016')).toEqual(['cvss_v3', 'epss_escalation']);
  });

  it('EPSS just below 0.10 adds nothing (6.5 stays MEDIUM)', () => {
    expect(cve('CVE-2024-10017')).toMatchObject({ service_score: 6.5, service_severity: 'MEDIUM' });
    expect(rules('CVE-2024-10017')).toEqual(['cvss_v3']);
  });

  it('EPSS exactly 0.50 adds 1.0 (8.0 → 9.0, the CRITICAL edge)', () => {
    expect(cve('CVE-2024-10018')).toMatchObject({ service_score: 9, service_severity: 'CRITICAL' });
  });

  it('EPSS just below 0.50 adds 0.5 (8.0 → 8.5)', () => {
    expect(cve('CVE-2024-10019')).toMatchObject({ service_score: 8.5, service_severity: 'HIGH' });
  });

  it('band edges: 8.9 is HIGH, 6.9 is MEDIUM', () => {
    expect(cve('CVE-2024-10020').service_severity).toBe('HIGH');
    expect(cve('CVE-2024-10021').service_severity).toBe('MEDIUM');
  });

  it('an assessed score is never below 0.4 (0.1 → 0.4, LOW)', () => {
    expect(cve('CVE-2024-10022')).toMatchObject({ service_score: 0.4, service_severity: 'LOW', score_assessed: true });
    expect(rules('CVE-2024-10022')).toContain('score_floor');
  });
});

describe('service_risk, SSVC decision and confidence (DESIGN §5.1–5.3)', () => {
  it('fuses severity, EPSS and vector automatability: 8.0, EPSS 0.3, network vector → 55.5', () => {
    // 100 × (0.45 × 0.80 + 0.40 × 0.30 + 0.15 × 0.5) = 36 + 12 + 7.5
    const r = cve('CVE-2024-10024');
    expect(r.service_score).toBe(8);
    expect(r.service_risk).toBe(55.5);
    expect(r.score_factors.svc_risk).toMatchObject({ severity_norm: 0.8, exploitation: 0.3, automatable: 0.5 });
    expect(r.score_factors.svc_risk.weights).toEqual({ severity: 0.45, exploitation: 0.4, automatable: 0.15 });
  });

  it('rounds risk half-up: 15.75 + 20 + 15 = 50.75 → 50.8 (SSVC poc and automatable yes)', () => {
    expect(cve('CVE-2024-10025').service_risk).toBe(50.8);
  });

  it('gives a local, complex vector automatability 0.1 and no exploitation: 7.5 → 100×(0.3375+0.008+0.015)', () => {
    // EPSS 0.02 is the exploitation input (no exploit record).
    expect(cve('CVE-2024-10001').service_risk).toBe(36.1);
  });

  it('KEV means exploitation 1.0', () => {
    expect(cve('CVE-2024-10015').score_factors.svc_risk.exploitation).toBe(1);
  });

  it('SSVC: active + automatable + total impact → Act (M&WB medium)', () => {
    expect(cve('CVE-2024-10023').service_ssvc_decision).toBe('Act');
  });

  it('SSVC: poc + automatable + partial → Track', () => {
    expect(cve('CVE-2024-10025').service_ssvc_decision).toBe('Track');
  });

  it('SSVC fallbacks: KEV → active; local vector → not automatable; partial impact → Track', () => {
    expect(cve('CVE-2024-10014').score_factors.ssvc).toMatchObject({ exploitation: 'active', automatable: 'no', technical_impact: 'partial' });
    expect(cve('CVE-2024-10014').service_ssvc_decision).toBe('Track');
  });

  it('SSVC fallbacks: KEV + network vector with full impact → active/yes/total → Act', () => {
    expect(cve('CVE-2024-10027').score_factors.ssvc).toMatchObject({ exploitation: 'active', automatable: 'yes', technical_impact: 'total' });
    expect(cve('CVE-2024-10027').service_ssvc_decision).toBe('Act');
  });

  it('SSVC fallbacks: EPSS ≥ 0.10 → poc; a full-impact network v2 vector → automatable and total', () => {
    expect(cve('CVE-2024-10018').score_factors.ssvc.exploitation).toBe('poc');
    expect(cve('CVE-2024-10008').score_factors.ssvc).toMatchObject({ automatable: 'yes', technical_impact: 'total' });
  });

  it("a v2-only CVE whose NVD metric says userInteractionRequired is not automatable (v2 vectors have no UI)", () => {
    expect(cve('CVE-2024-10008').score_factors.svc_risk.automatable).toBe(0.5);
    expect(cve('CVE-2024-10028').score_factors.svc_risk.automatable).toBe(0.1);
    expect(cve('CVE-2024-10028').score_factors.ssvc.automatable).toBe('no');
    // 100 × (0.45 × 1.0 + 0.40 × 0 + 0.15 × 0.1) = 46.5, against 52.5 for 10008.
    expect(cve('CVE-2024-10028').service_risk).toBe(46.5);
    expect(cve('CVE-2024-10008').service_risk).toBe(52.5);
  });

  it('confidence counts independent signals: NVD + CNA + EPSS → HIGH', () => {
    expect(cve('CVE-2024-10002').score_confidence).toBe('HIGH');
  });

  it('confidence: NVD + EPSS → MEDIUM; NVD alone → LOW', () => {
    expect(cve('CVE-2024-10001').score_confidence).toBe('MEDIUM');
    expect(cve('CVE-2024-10020').score_confidence).toBe('LOW');
  });

  it('explains every number in plain words', () => {
    const f = cve('CVE-2024-10024').score_factors;
    expect(f.svc_risk.summary).toMatch(/^Risk 55\.5 = /);
    expect(f.svc_risk.about).toMatch(/45% severity/);
    expect(f.sources_contributing).toEqual(expect.arrayContaining(['nvd', 'epss']));
    expect(f.cvss).toMatchObject({ basis: 'cvss_v3', score: 7.5, assessor: 'nvd' });
  });

  it('names the contributing vendors sorted (list_distinct alone keeps a hash order)', () => {
    const vendors = (cve('CVE-2024-10032').score_factors.sources_contributing as string[]).filter((s) => s.startsWith('vendor:'));
    expect(vendors).toEqual(['vendor:apple', 'vendor:cisco', 'vendor:microsoft', 'vendor:oracle', 'vendor:redhat', 'vendor:siemens']);
  });
});
