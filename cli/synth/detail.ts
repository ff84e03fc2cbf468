/**
 * Expands one CVE of the plan into everything the sources say about it: text, product and
 * versions, CVSS from NVD / the CNA / CISA ADP / GitHub, timeline, status, KEV entry, SSVC,
 * references. Deterministic per (seed, index): every writer that needs CVE i calls
 * `cveDetail(plan, i)` and sees the same facts, without any writer keeping state.
 */
import { type Cna, cnaByKey } from './cnas.ts';
import {
  type Band, type VectorInfo, isTotalImpact, isWormable, pickDisagreeing, pickVector, v2BandFor,
} from './cvss.ts';
import { ANY_EXPLOIT, type CorpusPlan, DAY, FLAG, KEV_START, KIND, type Kind } from './plan.ts';
import type { Product } from './products.ts';
import { type Rng, rngFor } from './random.ts';
import { CORPUS_NOW } from './scale.ts';
import { REJECT_NEW, REJECT_OLD, REJECT_UNUSED, type TextContext, description, spanish, title, titleCase } from './text.ts';
import { type Branch, lastAffectedOf, makeBranches } from './versions.ts';
import { VULN_CLASSES, type VulnClass } from './vocab.ts';

export interface Reference {
  url: string;
  /** NVD tags; null = no `tags` key (unanalysed records). */
  nvdTags: string[] | null;
  /** CVE 5 tags; null = none. */
  cve5Tags: string[] | null;
}

export interface KevEntry {
  dateAdded: number;
  dueDate: number;
  requiredAction: string;
  vulnerabilityName: string;
  shortDescription: string;
  ransomware: 'Known' | 'Unknown';
  notes: string;
}

export interface SsvcDecision {
  exploitation: 'none' | 'poc' | 'active';
  automatable: 'yes' | 'no';
  technicalImpact: 'partial' | 'total';
  timestamp: number;
}

export interface CveDetail {
  index: number;
  id: string;
  year: number;
  kind: Kind;
  band: Band;
  flags: number;
  product: Product;
  /** Every affected product (the first is `product`). */
  products: Product[];
  cna: Cna;
  cls: VulnClass;
  cwe: number;
  /** NVD's own weakness entry: `CWE-n`, `NVD-CWE-noinfo`, `NVD-CWE-Other` or none. */
  nvdWeakness: string | null;
  /** The CNA names the CWE (CVE 5 problemTypes, NVD Secondary weakness). */
  cnaCwe: boolean;
  branches: Branch[];
  affectedUpTo: string;
  fixedIn: string | null;
  published: number;
  reserved: number;
  nvdModified: number;
  cnaUpdated: number;
  /** CISA ADP container time (0 = no CISA ADP container). */
  adpUpdated: number;
  /** CVE Program container time (0 = none). */
  cveProgramUpdated: number;
  cveUpdated: number;
  vulnStatus: string;
  /** NVD `cveTags`; null = key absent (older records). */
  cveTags: string[] | null;
  description: string;
  descriptionEs: string | null;
  title: string | null;
  nvdMetrics: VectorInfo[];
  cnaMetrics: VectorInfo[];
  /** VulDB-style minimal CVE 5 metric objects. */
  cnaMinimal: boolean;
  adpMetric: VectorInfo | null;
  /** What the GHSA record carries (null: no vector) and its database band. */
  ghsaVectors: VectorInfo[];
  ghsaBand: 'LOW' | 'MODERATE' | 'HIGH' | 'CRITICAL';
  /** The band vendors state (Critical/Important/Moderate/Low ↔ 3/2/1/0). */
  vendorBand: Band;
  ssvc: SsvcDecision | null;
  /** NVD mirrors the SSVC decision as `metrics.ssvcV203`. */
  nvdSsvc: boolean;
  kev: KevEntry | null;
  references: Reference[];
  /** NVD has CPE configurations (analysed records). */
  configured: boolean;
  /** CVE 5 record in the legacy conversion style (`n/a`, `x_refsource_*`, zone-less dates). */
  legacy: boolean;
  rejection: { text: string; reason: string; replacedBy: string | null } | null;
  /** The score that decides SSVC and exploit likelihood (best v3/v4/v2 available). */
  primaryVector: VectorInfo | null;
}

const NVD_V2_END = Date.UTC(2022, 6, 13);
const NVD_V31_START = Date.UTC(2019, 6, 1);
const CVE_PROGRAM_START = Date.UTC(2024, 6, 17);
const BULK_REFRESH = Date.UTC(2024, 10, 20, 23, 27, 31, 207);
const HOUR = 3_600_000;

type ClassTable = Array<readonly [VulnClass, number]>;
const byDomain = (domains: Array<VulnClass['domain']>): ClassTable =>
  VULN_CLASSES.filter((c) => domains.includes(c.domain)).map((c) => [c, c.weight] as const);
const WEB_CLASSES = byDomain(['web', 'any']);
const NATIVE_CLASSES = byDomain(['native', 'any']);
const ALL_CLASSES = byDomain(['web', 'native', 'any']);

function classFor(rng: Rng, p: Product): VulnClass {
  if (p.kind === 'web' || p.kind === 'plugin') return rng.weighted(WEB_CLASSES);
  if (p.kind === 'os' || p.kind === 'device' || p.kind === 'desktop' || p.versioning === 'kernel') return rng.weighted(NATIVE_CLASSES);
  return rng.weighted(ALL_CLASSES);
}

function v3Of(list: VectorInfo[]): VectorInfo | undefined {
  for (const m of list) if (m.version === '3.1' || m.version === '3.0') return m;
  return undefined;
}

function v4Of(list: VectorInfo[]): VectorInfo | undefined {
  for (const m of list) if (m.version === '4.0') return m;
  return undefined;
}

function clampNow(ms: number): number {
  return Math.min(Math.floor(ms), CORPUS_NOW - HOUR);
}

function between(rng: Rng, from: number, to: number): number {
  return to <= from ? from : from + Math.floor(rng.float() * (to - from));
}

const STATUS: Partial<Record<Kind, Array<[string, number]>>> = {
  [KIND.NO_SIGNAL]: [['Received', 45], ['Awaiting Analysis', 55]],
  [KIND.V2_ONLY]: [['Modified', 60], ['Analyzed', 25], ['Deferred', 15]],
  [KIND.V3_NVD_ONLY]: [['Analyzed', 55], ['Modified', 45]],
  [KIND.V3_BOTH_AGREE]: [['Analyzed', 55], ['Modified', 45]],
  [KIND.V3_BOTH_DISAGREE]: [['Analyzed', 50], ['Modified', 50]],
  [KIND.V3_CNA_ONLY]: [['Awaiting Analysis', 40], ['Deferred', 20], ['Received', 10], ['Undergoing Analysis', 10], ['Analyzed', 20]],
  [KIND.V4_ONLY]: [['Awaiting Analysis', 50], ['Received', 25], ['Deferred', 25]],
  [KIND.VENDOR_ONLY]: [['Awaiting Analysis', 60], ['Deferred', 40]],
  [KIND.GHSA_VECTOR_ONLY]: [['Awaiting Analysis', 50], ['Deferred', 30], ['Received', 20]],
  [KIND.GHSA_BAND_ONLY]: [['Awaiting Analysis', 50], ['Deferred', 30], ['Received', 20]],
};

const GHSA_BANDS = ['LOW', 'MODERATE', 'HIGH', 'CRITICAL'] as const;

export function cveDetail(plan: CorpusPlan, i: number): CveDetail {
  const rng = rngFor(plan.root, 'cve', i);
  const kind = plan.kind[i] as Kind;
  const band = plan.band[i] as Band;
  const flags = plan.flags[i]!;
  const year = plan.year[i]!;
  const published = plan.published[i]!;
  const product = plan.productOf(i);
  const products = [product];
  if (rng.chance(0.12)) {
    const sibling = plan.catalog.get(plan.catalog.sampleRank(rng));
    if (sibling !== product && (sibling.vendor === product.vendor || rng.chance(0.3))) products.push(sibling);
  }
  const legacyEra = year < 2016;
  const cna = cnaByKey(legacyEra ? 'mitre' : product.cna);
  const cls = cna.style === 'microsoft' ? rng.weighted(NATIVE_CLASSES) : classFor(rng, product);
  const branches = makeBranches(rng, product, year);
  const affectedUpTo = lastAffectedOf(branches);
  const fixedIn = branches[branches.length - 1]!.fixed;

  // --- CVSS, by scoring shape -------------------------------------------------------------
  const nvdMetrics: VectorInfo[] = [];
  const cnaMetrics: VectorInfo[] = [];
  let cnaMinimal = cna.style === 'vuldb';
  const nvdV3Version = published < NVD_V31_START && rng.chance(0.6) ? '3.0' : '3.1';
  // CVSS 3.1 appeared in mid-2019: older scores are 3.0 unless re-analysed later.
  const cnaV3Version = cna.key === 'jpcert' || (published < NVD_V31_START && rng.chance(0.7)) ? '3.0' : '3.1';
  const withNvdV2 = published < NVD_V2_END;
  switch (kind) {
    case KIND.V2_ONLY:
      nvdMetrics.push(pickVector('2.0', band, rng));
      break;
    case KIND.V3_NVD_ONLY:
      nvdMetrics.push(pickVector(nvdV3Version, band, rng));
      if (withNvdV2) nvdMetrics.push(pickVector('2.0', v2BandFor(band), rng));
      break;
    case KIND.V3_CNA_ONLY:
      cnaMetrics.push(pickVector(cnaV3Version, band, rng));
      break;
    case KIND.V3_BOTH_AGREE: {
      // NVD confirms the CNA's vector as is (same version, same score).
      const shared = pickVector(cnaV3Version, band, rng);
      cnaMetrics.push(shared);
      nvdMetrics.push(shared);
      if (withNvdV2) nvdMetrics.push(pickVector('2.0', v2BandFor(band), rng));
      break;
    }
    case KIND.V3_BOTH_DISAGREE: {
      const nvd = pickVector(nvdV3Version, band, rng);
      nvdMetrics.push(nvd);
      cnaMetrics.push(pickDisagreeing(nvd, band, rng));
      if (withNvdV2) nvdMetrics.push(pickVector('2.0', v2BandFor(band), rng));
      break;
    }
    case KIND.V4_ONLY:
      cnaMetrics.push(pickVector('4.0', band, rng));
      cnaMinimal = false;
      break;
    default:
      break;
  }
  // Newer CNAs add v4.0 next to v3.1; VulDB adds v2 too.
  if (cnaMetrics.length > 0 && kind !== KIND.V4_ONLY) {
    if (published >= Date.UTC(2023, 10, 1) && (cna.style === 'vuldb' || cna.style === 'github' || cna.key === 'icscert' || rng.chance(0.1))) {
      cnaMetrics.unshift(pickVector('4.0', band, rng));
    }
    if (cna.style === 'vuldb') cnaMetrics.push(pickVector('2.0', v2BandFor(band), rng));
  }
  const adpMetric = flags & FLAG.ADP_CVSS ? pickVector('3.1', band, rng) : null;

  let primaryVector = v3Of(nvdMetrics) ?? v3Of(cnaMetrics) ?? v4Of(cnaMetrics) ?? nvdMetrics[0] ?? null;

  // GitHub's copy: the CNA's (or NVD's) vector most of the time, its own judgement otherwise.
  const ghsaVectors: VectorInfo[] = [];
  if (flags & FLAG.GHSA && kind !== KIND.GHSA_BAND_ONLY) {
    const base = v3Of(cnaMetrics) ?? v3Of(nvdMetrics);
    if (kind === KIND.GHSA_VECTOR_ONLY || !base) ghsaVectors.push(pickVector('3.1', band === 0 && kind === KIND.V2_ONLY ? 1 : band, rng));
    else ghsaVectors.push(rng.chance(0.8) || base.version !== '3.1' ? base : pickDisagreeing(base, band, rng));
    const v4 = v4Of(cnaMetrics);
    if (v4 && rng.chance(0.5)) ghsaVectors.push(v4);
  }
  primaryVector ??= ghsaVectors[0] ?? null;
  const ghsaBandIndex = ghsaVectors[0] ? ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'].indexOf(ghsaVectors[0].severity) : band;
  const ghsaBand = GHSA_BANDS[Math.max(0, ghsaBandIndex)]!;
  const vendorBand = (primaryVector ? Math.max(0, ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'].indexOf(primaryVector.severity)) : band) as Band;

  // --- Timeline and NVD status ------------------------------------------------------------
  const reserved = published - rng.int(1, legacyEra ? 60 : 120) * DAY - rng.int(0, 86_399) * 1000;
  const vulnStatus = kind === KIND.REJECTED ? 'Rejected' : rng.weighted(STATUS[kind] ?? [['Analyzed', 1]]);
  const analysed = vulnStatus === 'Analyzed' || vulnStatus === 'Modified' || (legacyEra && vulnStatus === 'Deferred');
  let cnaUpdated = clampNow(rng.chance(0.7) ? published + rng.int(0, 3 * 24 * 3600) * 1000 : between(rng, published, published + 600 * DAY));
  let nvdModified: number;
  if (vulnStatus === 'Received') nvdModified = rng.chance(0.6) ? published : clampNow(published + rng.int(1, 90) * 60_000);
  else if (legacyEra) nvdModified = rng.chance(0.4) ? BULK_REFRESH + rng.int(0, 900) * 1000 : clampNow(between(rng, published + 365 * DAY, CORPUS_NOW));
  else if (analysed) {
    nvdModified = clampNow(published + rng.int(1, 45) * DAY + rng.int(0, 86_399) * 1000);
    if (vulnStatus === 'Modified') nvdModified = clampNow(between(rng, nvdModified, CORPUS_NOW));
  } else nvdModified = clampNow(published + rng.int(0, 30 * 24 * 3600) * 1000);
  if (kind === KIND.V3_BOTH_DISAGREE) {
    // Half the disagreements have the CNA's metric fresher than NVD's record, half older.
    const t1 = clampNow(published + rng.int(1, 200) * DAY + rng.int(0, 86_399_999));
    const t2 = clampNow(t1 + rng.int(1, 300) * DAY + rng.int(0, 86_399_999));
    if (rng.chance(0.5)) [nvdModified, cnaUpdated] = [t1, t2];
    else [cnaUpdated, nvdModified] = [t1, t2];
  }

  // --- KEV, SSVC ----------------------------------------------------------------------------
  let kev: KevEntry | null = null;
  if (flags & FLAG.KEV) {
    let added: number;
    if (published < KEV_START) added = rng.chance(0.35) ? KEV_START : between(rng, KEV_START, CORPUS_NOW - 2 * DAY);
    else added = Math.min(CORPUS_NOW - DAY, published + rng.geometric(25) * DAY);
    added = Date.UTC(new Date(added).getUTCFullYear(), new Date(added).getUTCMonth(), new Date(added).getUTCDate());
    const initialBatch = added === KEV_START;
    const due = initialBatch ? (published < Date.UTC(2021, 0, 1) ? Date.UTC(2022, 4, 3) : Date.UTC(2021, 10, 17)) : added + 21 * DAY;
    const name = `${product.vendorName} ${product.productName} ${titleCase(cls.phrase)} Vulnerability`;
    kev = {
      dateAdded: added,
      dueDate: due,
      requiredAction: rng.weighted([
        ['Apply updates per vendor instructions.', 30],
        ['Apply mitigations per vendor instructions or discontinue use of the product if mitigations are unavailable.', 40],
        ['Apply mitigations per vendor instructions, follow applicable BOD 22-01 guidance for cloud services, or discontinue use of the product if mitigations are unavailable.', 30],
      ]),
      vulnerabilityName: name,
      shortDescription: `${product.vendorName} ${product.productName} contains a ${cls.phrase} vulnerability that allows ${cls.impact === 'eop' ? 'a local attacker' : 'a remote attacker'} to ${cls.achieves}.`,
      ransomware: rng.chance(0.15) ? 'Known' : 'Unknown',
      notes: '',
    };
    nvdModified = Math.max(nvdModified, clampNow(added + rng.int(1, 72) * HOUR));
  }
  let ssvc: SsvcDecision | null = null;
  let adpUpdated = 0;
  if (flags & FLAG.SSVC) {
    let ts: number;
    if (year >= 2024) ts = clampNow(published + rng.int(1, 240) * HOUR);
    else ts = clampNow(between(rng, Math.max(Date.UTC(2024, 4, 15), kev?.dateAdded ?? 0), CORPUS_NOW));
    const exploited = flags & (FLAG.KEV | FLAG.SSVC_ACTIVE);
    ssvc = {
      exploitation: exploited ? 'active' : flags & ANY_EXPLOIT || rng.chance(0.03) ? 'poc' : 'none',
      automatable: primaryVector ? (isWormable(primaryVector) && rng.chance(0.8) ? 'yes' : 'no') : rng.chance(0.2) ? 'yes' : 'no',
      technicalImpact: primaryVector ? (isTotalImpact(primaryVector) ? 'total' : 'partial') : rng.chance(0.3) ? 'total' : 'partial',
      timestamp: ts,
    };
    adpUpdated = clampNow(Math.max(ts, kev ? kev.dateAdded + rng.int(1, 20) * HOUR : 0) + rng.int(0, 3600) * 1000);
  }
  const nvdSsvc = ssvc !== null && published >= Date.UTC(2025, 5, 1) && rng.chance(0.7);
  let cveProgramUpdated = 0;
  if (kind !== KIND.REJECTED && published < CVE_PROGRAM_START && rng.chance(legacyEra ? 0.6 : 0.45)) {
    cveProgramUpdated = between(rng, Date.UTC(2024, 7, 1), Date.UTC(2024, 7, 3));
  }

  // --- Weaknesses, text, references -----------------------------------------------------------
  const cnaCwe = !legacyEra && kind !== KIND.REJECTED && (cna.key === 'mitre' ? rng.chance(0.1) : cna.key !== 'linux' && rng.chance(0.85));
  let nvdWeakness: string | null = null;
  if (analysed && kind !== KIND.REJECTED && rng.chance(0.9)) {
    nvdWeakness = rng.weighted([[`CWE-${cls.cwe}`, 80], ['NVD-CWE-noinfo', 12], ['NVD-CWE-Other', 8]]);
  }
  const local = primaryVector ? primaryVector.metrics.AV === 'L' : rng.chance(0.15);
  const ctx: TextContext = { cls, product, cna, year, affectedUpTo, fixedIn, local };
  let text = '';
  let rejection: CveDetail['rejection'] = null;
  if (kind === KIND.REJECTED) {
    const other = i > 0 ? plan.cveId(i - 1) : null;
    const style = rng.float();
    if (style < 0.35 && other) {
      text = REJECT_OLD(other);
      rejection = { text, reason: `This candidate is a duplicate of ${other}.`, replacedBy: other };
    } else if (style < 0.7) {
      text = REJECT_UNUSED;
      rejection = { text, reason: 'The CNA or individual who requested this candidate did not associate it with any vulnerability.', replacedBy: null };
    } else {
      text = `** REJECT ** ${REJECT_NEW}`;
      rejection = { text, reason: REJECT_NEW, replacedBy: rng.chance(0.3) ? other : null };
    }
    nvdModified = clampNow(between(rng, published, published + 400 * DAY));
    cnaUpdated = nvdModified;
  } else text = description(ctx, rng);

  const cveUpdated = Math.max(cnaUpdated, adpUpdated, cveProgramUpdated);
  let cveTags: string[] | null = nvdModified >= Date.UTC(2023, 0, 1) ? [] : null;
  if (cveTags && text.startsWith('** DISPUTED **')) cveTags = ['disputed'];
  else if (cveTags && rng.chance(0.004)) cveTags = [rng.pick(['unsupported-when-assigned', 'exclusively-hosted-service'])];

  const references = kind === KIND.REJECTED ? [] : buildReferences(rng, { product, cna, id: plan.cveId(i), published, analysed, legacyEra, flags, year });
  return {
    index: i,
    id: plan.cveId(i),
    year,
    kind,
    band,
    flags,
    product,
    products,
    cna,
    cls,
    cwe: cls.cwe,
    nvdWeakness,
    cnaCwe,
    branches,
    affectedUpTo,
    fixedIn,
    published,
    reserved,
    nvdModified,
    cnaUpdated,
    adpUpdated,
    cveProgramUpdated,
    cveUpdated,
    vulnStatus,
    cveTags,
    description: text,
    descriptionEs: kind !== KIND.REJECTED && rng.chance(0.25) ? spanish(ctx) : null,
    title: kind !== KIND.REJECTED && !legacyEra && rng.chance(0.7) ? title(ctx) : null,
    nvdMetrics,
    cnaMetrics,
    cnaMinimal,
    adpMetric,
    ghsaVectors,
    ghsaBand,
    vendorBand,
    ssvc,
    nvdSsvc,
    kev,
    references,
    configured: analysed && kind !== KIND.REJECTED,
    legacy: legacyEra,
    rejection,
    primaryVector,
  };
}

function addReference(refs: Reference[], rng: Rng, c: RefContext, url: string, nvd: string[], cve5: string[] | null, legacyTag: string): void {
  refs.push({
    url,
    nvdTags: c.analysed ? nvd : null,
    cve5Tags: c.legacyEra ? [legacyTag] : rng.chance(0.5) ? cve5 : null,
  });
}

interface RefContext {
  product: Product;
  cna: Cna;
  id: string;
  published: number;
  analysed: boolean;
  legacyEra: boolean;
  flags: number;
  year: number;
}

function vendorDomain(p: Product): string {
  return `${p.vendor.replace(/_/g, '')}.com`;
}

/** 1–6 references in the shapes real records carry, tagged the way NVD and CVE 5 tag them. */
function buildReferences(rng: Rng, c: RefContext): Reference[] {
  const refs: Reference[] = [];
  const add = addReference.bind(null, refs, rng, c);
  const p = c.product;
  const owner = p.vendor.replace(/_/g, '-');
  if (c.legacyEra) {
    add(`http://www.securityfocus.com/bid/${rng.int(1000, 99999)}`, rng.chance(0.3) ? ['Broken Link'] : ['Third Party Advisory', 'VDB Entry'], null, 'x_refsource_BID');
    if (rng.chance(0.6)) add(`http://secunia.com/advisories/${rng.int(10000, 69999)}`, ['Third Party Advisory'], null, 'x_refsource_SECUNIA');
    if (rng.chance(0.5)) add(`http://www.${vendorDomain(p)}/security/advisory-${rng.int(1, 999)}.html`, ['Vendor Advisory'], null, 'x_refsource_CONFIRM');
  } else if (c.cna.style === 'kernel') {
    for (let k = rng.int(1, 4); k > 0; k--) add(`https://git.kernel.org/stable/c/${rng.commitHash()}`, ['Patch'], null, '');
  } else if (p.kind === 'plugin') {
    add(`https://www.wordfence.com/threat-intel/vulnerabilities/id/${rng.uuid()}?source=cve`, ['Third Party Advisory'], null, '');
    add(`https://plugins.trac.wordpress.org/changeset/${rng.int(2_000_000, 3_300_000)}/${p.product}`, ['Patch'], null, '');
  } else if (p.ecosystem || c.cna.style === 'github') {
    const repo = p.packageName?.split('/').pop()?.replace(/^.*:/, '') ?? p.product;
    add(`https://github.com/${owner}/${repo}/security/advisories/GHSA-${rng.chars('23456789cfghjmpqrvwx', 4)}-${rng.chars('23456789cfghjmpqrvwx', 4)}-${rng.chars('23456789cfghjmpqrvwx', 4)}`, ['Vendor Advisory'], ['vendor-advisory'], '');
    add(`https://github.com/${owner}/${repo}/commit/${rng.commitHash()}`, ['Patch'], ['patch'], '');
    if (rng.chance(0.4)) add(`https://github.com/${owner}/${repo}/issues/${rng.int(10, 9000)}`, ['Issue Tracking'], ['issue-tracking'], '');
  } else if (c.cna.style === 'vuldb') {
    const id = rng.int(200_000, 330_000);
    add(`https://vuldb.com/?id.${id}`, ['Third Party Advisory', 'VDB Entry'], ['vdb-entry', 'technical-description'], '');
    add(`https://vuldb.com/?ctiid.${id}`, ['Permissions Required', 'VDB Entry'], ['signature', 'permissions-required'], '');
  } else if (c.cna.style === 'microsoft') {
    add(`https://msrc.microsoft.com/update-guide/vulnerability/${c.id}`, ['Patch', 'Vendor Advisory'], ['vendor-advisory'], '');
  } else {
    add(`https://${vendorDomain(p)}/security/advisories/${p.vendor}-sa-${c.year}-${rng.int(1, 400)}`, ['Vendor Advisory'], ['vendor-advisory'], '');
    if (rng.chance(0.3)) add(`https://security.netapp.com/advisory/ntap-${c.year}${String(rng.int(1, 12)).padStart(2, '0')}${String(rng.int(1, 28)).padStart(2, '0')}-000${rng.int(1, 9)}/`, ['Third Party Advisory'], null, '');
  }
  if (p.distro && rng.chance(0.4)) {
    add(`https://lists.debian.org/debian-lts-announce/${c.year}/${String(rng.int(1, 12)).padStart(2, '0')}/msg000${rng.int(10, 99)}.html`, ['Mailing List', 'Third Party Advisory'], ['mailing-list'], 'x_refsource_MLIST');
  }
  if (c.flags & (FLAG.EXPLOITDB | FLAG.POC)) {
    add(`http://packetstormsecurity.com/files/${rng.int(100_000, 180_000)}/${p.productName.replace(/[^A-Za-z0-9]+/g, '-')}-Exploit.html`, ['Exploit', 'Third Party Advisory', 'VDB Entry'], ['exploit'], 'x_refsource_MISC');
  }
  return refs;
}
