/**
 * CVSS vectors for the synthetic corpus and the metric objects NVD and CVE 5 wrap them in.
 * Vectors are drawn by severity band (the plan decides the band, so KEV and EPSS can favour
 * severe CVEs); scores come from ae-cvss-calculator, computed once per distinct vector.
 */
import cvssCalculator from 'ae-cvss-calculator';
import { baseScoreOf, cvssSeverity, cvssV2Severity } from '../parse/common.ts';
import { Rng, rngFor } from './random.ts';

type Scores = { base?: number; baseMetricsOnly?: number; impact?: number; exploitability?: number };
type CvssCtor = new (vector: string) => { calculateScores(): Scores };
const { Cvss2, Cvss3P0, Cvss3P1, Cvss4P0 } = cvssCalculator as unknown as Record<'Cvss2' | 'Cvss3P0' | 'Cvss3P1' | 'Cvss4P0', CvssCtor>;

/** 0 LOW, 1 MEDIUM, 2 HIGH, 3 CRITICAL (v2 has no CRITICAL: band 3 is drawn as HIGH). */
export type Band = 0 | 1 | 2 | 3;
export const BAND_NAMES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;

export type CvssVersion = '2.0' | '3.0' | '3.1' | '4.0';

export interface VectorInfo {
  version: CvssVersion;
  vector: string;
  score: number;
  severity: string;
  impact: number | null;
  exploitability: number | null;
  /** Metric letter → value letter (`AV` → `N`). */
  metrics: Record<string, string>;
}

function parseMetrics(vector: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of vector.split('/')) {
    const [k, v] = part.split(':');
    if (k && v && k !== 'CVSS') out[k] = v;
  }
  return out;
}

function describe(version: CvssVersion, vector: string): VectorInfo {
  const Ctor = version === '2.0' ? Cvss2 : version === '3.0' ? Cvss3P0 : version === '3.1' ? Cvss3P1 : Cvss4P0;
  const s = new Ctor(vector).calculateScores();
  const score = baseScoreOf(version, s) ?? 0;
  return {
    version,
    vector,
    score,
    severity: version === '2.0' ? cvssV2Severity(score) : cvssSeverity(score),
    impact: version === '4.0' ? null : round1(s.impact ?? 0),
    exploitability: version === '4.0' ? null : round1(s.exploitability ?? 0),
    metrics: parseMetrics(vector),
  };
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}

function bandOf(info: VectorInfo): Band {
  const i = BAND_NAMES.indexOf(info.severity as (typeof BAND_NAMES)[number]);
  return (i < 0 ? 0 : i) as Band;
}

interface Pool {
  /** Per band: vectors and cumulative weights. */
  byBand: Array<{ items: VectorInfo[]; cdf: number[] }>;
}

function buildPool(entries: Array<[VectorInfo, number]>): Pool {
  const byBand: Pool['byBand'] = [0, 1, 2, 3].map(() => ({ items: [], cdf: [] }));
  for (const [info, weight] of entries) {
    if (weight <= 0 || info.score === 0) continue;
    const slot = byBand[bandOf(info)]!;
    slot.items.push(info);
    slot.cdf.push((slot.cdf[slot.cdf.length - 1] ?? 0) + weight);
  }
  return { byBand };
}

function pickFrom(pool: Pool, band: Band, rng: Rng): VectorInfo {
  // v2 has no CRITICAL band: fall back to the nearest band that has vectors.
  let b = band;
  while (pool.byBand[b]!.items.length === 0) b = (b - 1) as Band;
  const slot = pool.byBand[b]!;
  const r = rng.float() * slot.cdf[slot.cdf.length - 1]!;
  let lo = 0;
  let hi = slot.cdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (slot.cdf[mid]! < r) lo = mid + 1;
    else hi = mid;
  }
  return slot.items[lo]!;
}

type Weights = Record<string, Array<[string, number]>>;

/** Metric weights shaped on NVD data: network, low complexity, no privileges dominate. */
const V3_WEIGHTS: Weights = {
  AV: [['N', 70], ['A', 5], ['L', 22], ['P', 3]],
  AC: [['L', 85], ['H', 15]],
  PR: [['N', 55], ['L', 35], ['H', 10]],
  UI: [['N', 60], ['R', 40]],
  S: [['U', 85], ['C', 15]],
  C: [['H', 50], ['L', 25], ['N', 25]],
  I: [['H', 45], ['L', 25], ['N', 30]],
  A: [['H', 45], ['L', 10], ['N', 45]],
};

const V2_WEIGHTS: Weights = {
  AV: [['N', 80], ['A', 3], ['L', 17]],
  AC: [['L', 65], ['M', 30], ['H', 5]],
  Au: [['N', 80], ['S', 19], ['M', 1]],
  C: [['N', 35], ['P', 50], ['C', 15]],
  I: [['N', 35], ['P', 50], ['C', 15]],
  A: [['N', 40], ['P', 45], ['C', 15]],
};

function enumerate(weights: Weights, prefix: string): Array<[string, number]> {
  let combos: Array<[string, number]> = [['', 1]];
  for (const [metric, values] of Object.entries(weights)) {
    const next: Array<[string, number]> = [];
    for (const [vec, w] of combos) for (const [v, vw] of values) next.push([`${vec}/${metric}:${v}`, w * vw]);
    combos = next;
  }
  return combos.map(([v, w]) => [prefix ? `${prefix}${v}` : v.slice(1), w]);
}

const V4_BASE_METRICS: Weights = {
  AV: [['N', 70], ['A', 5], ['L', 22], ['P', 3]],
  AC: [['L', 85], ['H', 15]],
  AT: [['N', 85], ['P', 15]],
  PR: [['N', 55], ['L', 35], ['H', 10]],
  UI: [['N', 60], ['P', 25], ['A', 15]],
  VC: [['H', 50], ['L', 25], ['N', 25]],
  VI: [['H', 45], ['L', 25], ['N', 30]],
  VA: [['H', 45], ['L', 10], ['N', 45]],
  SC: [['N', 80], ['L', 12], ['H', 8]],
  SI: [['N', 80], ['L', 12], ['H', 8]],
  SA: [['N', 85], ['L', 8], ['H', 7]],
};

let pools: { v2: Pool; v30: Pool; v31: Pool; v40: Pool } | null = null;

/** Built on first use: ~6,000 score computations (well under a second). */
function getPools() {
  if (pools) return pools;
  const v3 = enumerate(V3_WEIGHTS, '');
  // The v4 space is too large to enumerate: a fixed-seed sample of 300 vectors stands in.
  const rng = rngFor(0x5eed, 'cvss-v4-pool');
  const v4: Array<[VectorInfo, number]> = [];
  const seen = new Set<string>();
  while (v4.length < 300) {
    let vec = 'CVSS:4.0';
    for (const [metric, values] of Object.entries(V4_BASE_METRICS)) vec += `/${metric}:${rng.weighted(values)}`;
    if (seen.has(vec)) continue;
    seen.add(vec);
    v4.push([describe('4.0', vec), 1]);
  }
  pools = {
    v2: buildPool(enumerate(V2_WEIGHTS, '').map(([v, w]) => [describe('2.0', v), w])),
    v30: buildPool(v3.map(([v, w]) => [describe('3.0', `CVSS:3.0/${v}`), w])),
    v31: buildPool(v3.map(([v, w]) => [describe('3.1', `CVSS:3.1/${v}`), w])),
    v40: buildPool(v4),
  };
  return pools;
}

export function pickVector(version: CvssVersion, band: Band, rng: Rng): VectorInfo {
  const p = getPools();
  const pool = version === '2.0' ? p.v2 : version === '3.0' ? p.v30 : version === '3.1' ? p.v31 : p.v40;
  return pickFrom(pool, band, rng);
}

/** A vector of the same version that disagrees with `other`: a neighbouring band or another vector. */
export function pickDisagreeing(other: VectorInfo, band: Band, rng: Rng): VectorInfo {
  for (let attempt = 0; attempt < 20; attempt++) {
    const shift = rng.weighted<number>([[0, 4], [1, 3], [-1, 3]]);
    const b = Math.min(3, Math.max(0, band + shift)) as Band;
    const v = pickVector(other.version, b, rng);
    if (v.score !== other.score) return v;
  }
  return pickVector(other.version, band === 3 ? 1 : 3, rng);
}

/** The band the v3 band corresponds to in CVSS v2 terms (for the v2 metric of modern CVEs). */
export function v2BandFor(band: Band): Band {
  return band === 3 ? 2 : band;
}

const V3_NAMES: Record<string, Record<string, string>> = {
  AV: { N: 'NETWORK', A: 'ADJACENT_NETWORK', L: 'LOCAL', P: 'PHYSICAL' },
  AC: { L: 'LOW', H: 'HIGH' },
  PR: { N: 'NONE', L: 'LOW', H: 'HIGH' },
  UI: { N: 'NONE', R: 'REQUIRED' },
  S: { U: 'UNCHANGED', C: 'CHANGED' },
  CIA: { H: 'HIGH', L: 'LOW', N: 'NONE' },
};
const V2_NAMES: Record<string, Record<string, string>> = {
  AV: { N: 'NETWORK', A: 'ADJACENT_NETWORK', L: 'LOCAL' },
  AC: { L: 'LOW', M: 'MEDIUM', H: 'HIGH' },
  Au: { N: 'NONE', S: 'SINGLE', M: 'MULTIPLE' },
  CIA: { N: 'NONE', P: 'PARTIAL', C: 'COMPLETE' },
};
const V4_NAMES: Record<string, Record<string, string>> = {
  AV: { N: 'NETWORK', A: 'ADJACENT', L: 'LOCAL', P: 'PHYSICAL' },
  AC: { L: 'LOW', H: 'HIGH' },
  AT: { N: 'NONE', P: 'PRESENT' },
  PR: { N: 'NONE', L: 'LOW', H: 'HIGH' },
  UI: { N: 'NONE', P: 'PASSIVE', A: 'ACTIVE' },
  CIA: { H: 'HIGH', L: 'LOW', N: 'NONE' },
};

function name(table: Record<string, Record<string, string>>, metric: string, value: string | undefined): string {
  return table[metric]?.[value ?? ''] ?? 'NONE';
}

/** The `cvssData` object NVD publishes for a v3.x vector (newer key order: version first). */
export function nvdV3Data(v: VectorInfo) {
  const m = v.metrics;
  return {
    version: v.version,
    vectorString: v.vector,
    baseScore: v.score,
    baseSeverity: v.severity,
    attackVector: name(V3_NAMES, 'AV', m.AV),
    attackComplexity: name(V3_NAMES, 'AC', m.AC),
    privilegesRequired: name(V3_NAMES, 'PR', m.PR),
    userInteraction: name(V3_NAMES, 'UI', m.UI),
    scope: name(V3_NAMES, 'S', m.S),
    confidentialityImpact: name(V3_NAMES, 'CIA', m.C),
    integrityImpact: name(V3_NAMES, 'CIA', m.I),
    availabilityImpact: name(V3_NAMES, 'CIA', m.A),
  };
}

export function nvdV2Data(v: VectorInfo) {
  const m = v.metrics;
  return {
    version: '2.0',
    vectorString: v.vector,
    baseScore: v.score,
    accessVector: name(V2_NAMES, 'AV', m.AV),
    accessComplexity: name(V2_NAMES, 'AC', m.AC),
    authentication: name(V2_NAMES, 'Au', m.Au),
    confidentialityImpact: name(V2_NAMES, 'CIA', m.C),
    integrityImpact: name(V2_NAMES, 'CIA', m.I),
    availabilityImpact: name(V2_NAMES, 'CIA', m.A),
  };
}

const V4_SUFFIX =
  '/E:X/CR:X/IR:X/AR:X/MAV:X/MAC:X/MAT:X/MPR:X/MUI:X/MVC:X/MVI:X/MVA:X/MSC:X/MSI:X/MSA:X/S:X/AU:X/R:X/V:X/RE:X/U:X';

/** NVD's v4 `cvssData`: the vector expanded with every `X` metric, every field spelled out. */
export function nvdV4Data(v: VectorInfo) {
  const m = v.metrics;
  const nd = 'NOT_DEFINED';
  return {
    version: '4.0',
    vectorString: `${v.vector}${V4_SUFFIX}`,
    baseScore: v.score,
    baseSeverity: v.severity,
    attackVector: name(V4_NAMES, 'AV', m.AV),
    attackComplexity: name(V4_NAMES, 'AC', m.AC),
    attackRequirements: name(V4_NAMES, 'AT', m.AT),
    privilegesRequired: name(V4_NAMES, 'PR', m.PR),
    userInteraction: name(V4_NAMES, 'UI', m.UI),
    vulnConfidentialityImpact: name(V4_NAMES, 'CIA', m.VC),
    vulnIntegrityImpact: name(V4_NAMES, 'CIA', m.VI),
    vulnAvailabilityImpact: name(V4_NAMES, 'CIA', m.VA),
    subConfidentialityImpact: name(V4_NAMES, 'CIA', m.SC),
    subIntegrityImpact: name(V4_NAMES, 'CIA', m.SI),
    subAvailabilityImpact: name(V4_NAMES, 'CIA', m.SA),
    exploitMaturity: nd,
    confidentialityRequirement: nd,
    integrityRequirement: nd,
    availabilityRequirement: nd,
    modifiedAttackVector: nd,
    modifiedAttackComplexity: nd,
    modifiedAttackRequirements: nd,
    modifiedPrivilegesRequired: nd,
    modifiedUserInteraction: nd,
    modifiedVulnConfidentialityImpact: nd,
    modifiedVulnIntegrityImpact: nd,
    modifiedVulnAvailabilityImpact: nd,
    modifiedSubConfidentialityImpact: nd,
    modifiedSubIntegrityImpact: nd,
    modifiedSubAvailabilityImpact: nd,
    Safety: nd,
    Automatable: nd,
    Recovery: nd,
    valueDensity: nd,
    vulnerabilityResponseEffort: nd,
    providerUrgency: nd,
  };
}

/**
 * Metric objects are immutable per vector and a few thousand vectors serve every CVE: build
 * each once. (JSON.stringify does not mind shared objects.)
 */
function memo<T extends object>(make: (v: VectorInfo) => T): (v: VectorInfo) => T {
  const cache = new WeakMap<VectorInfo, T>();
  return (v) => {
    let hit = cache.get(v);
    if (!hit) {
      hit = make(v);
      cache.set(v, hit);
    }
    return hit;
  };
}

const nvdV2DataOnce = memo(nvdV2Data);
const nvdV3DataOnce = memo(nvdV3Data);
const nvdV4DataOnce = memo(nvdV4Data);

/** One NVD metric entry for any version, with the role's `source` and `type`. */
export function nvdMetric(v: VectorInfo, source: string, type: 'Primary' | 'Secondary') {
  if (v.version === '4.0') return { source, type, cvssData: nvdV4DataOnce(v) };
  if (v.version === '2.0') {
    const m = v.metrics;
    return {
      source,
      type,
      cvssData: nvdV2DataOnce(v),
      baseSeverity: v.severity,
      exploitabilityScore: v.exploitability,
      impactScore: v.impact,
      acInsufInfo: false,
      obtainAllPrivilege: m.C === 'C' && m.I === 'C' && m.A === 'C',
      obtainUserPrivilege: false,
      obtainOtherPrivilege: false,
      userInteractionRequired: m.AC === 'M',
    };
  }
  return { source, type, cvssData: nvdV3DataOnce(v), exploitabilityScore: v.exploitability, impactScore: v.impact };
}

const cve5Full = memo((v) => buildCve5Metric(v, false));
const cve5Minimal = memo((v) => buildCve5Metric(v, true));

/** The CVE 5 `metrics[]` element for a CNA or ADP score (keys alphabetical, like Vulnogram). */
export function cve5Metric(v: VectorInfo, minimal: boolean): Record<string, unknown> {
  return minimal ? cve5Minimal(v) : cve5Full(v);
}

function buildCve5Metric(v: VectorInfo, minimal: boolean): Record<string, unknown> {
  if (v.version === '2.0') return { cvssV2_0: { version: '2.0', baseScore: v.score, vectorString: v.vector } };
  if (minimal) {
    const key = v.version === '4.0' ? 'cvssV4_0' : v.version === '3.1' ? 'cvssV3_1' : 'cvssV3_0';
    return { [key]: { version: v.version, baseScore: v.score, vectorString: v.vector, baseSeverity: v.severity } };
  }
  if (v.version === '4.0') {
    const d = nvdV4Data(v);
    return {
      cvssV4_0: {
        attackComplexity: d.attackComplexity,
        attackRequirements: d.attackRequirements,
        attackVector: d.attackVector,
        baseScore: v.score,
        baseSeverity: v.severity,
        privilegesRequired: d.privilegesRequired,
        subAvailabilityImpact: d.subAvailabilityImpact,
        subConfidentialityImpact: d.subConfidentialityImpact,
        subIntegrityImpact: d.subIntegrityImpact,
        userInteraction: d.userInteraction,
        vectorString: v.vector,
        version: '4.0',
        vulnAvailabilityImpact: d.vulnAvailabilityImpact,
        vulnConfidentialityImpact: d.vulnConfidentialityImpact,
        vulnIntegrityImpact: d.vulnIntegrityImpact,
      },
      format: 'CVSS',
      scenarios: [{ lang: 'en', value: 'GENERAL' }],
    };
  }
  return {
    // CVE 5 and CSAF both use the FIRST CVSS v3 JSON schema object.
    [v.version === '3.1' ? 'cvssV3_1' : 'cvssV3_0']: csafCvssV3(v),
    format: 'CVSS',
    scenarios: [{ lang: 'en', value: 'GENERAL' }],
  };
}

/** The FIRST CVSS v3 JSON schema object: CSAF `scores[].cvss_v3` and CVE 5 `cvssV3_x`. */
export function csafCvssV3(v: VectorInfo) {
  const d = nvdV3Data(v);
  return {
    attackComplexity: d.attackComplexity,
    attackVector: d.attackVector,
    availabilityImpact: d.availabilityImpact,
    baseScore: v.score,
    baseSeverity: v.severity,
    confidentialityImpact: d.confidentialityImpact,
    integrityImpact: d.integrityImpact,
    privilegesRequired: d.privilegesRequired,
    scope: d.scope,
    userInteraction: d.userInteraction,
    vectorString: v.vector,
    version: v.version,
  };
}

/** True when the vector describes network, low complexity, no privileges, no interaction. */
export function isWormable(v: VectorInfo): boolean {
  const m = v.metrics;
  return m.AV === 'N' && m.AC === 'L' && (m.PR ?? m.Au) === 'N' && (m.UI ?? 'N') === 'N';
}

/** Full C/I/A compromise (SSVC technical impact `total`). */
export function isTotalImpact(v: VectorInfo): boolean {
  const m = v.metrics;
  return (m.C ?? m.VC) === 'H' && (m.I ?? m.VI) === 'H' && (m.A ?? m.VA) === 'H';
}
