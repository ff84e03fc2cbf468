/**
 * The corpus plan: a few bytes per CVE, in typed arrays, deciding everything that links
 * sources together (id, publication time, product, scoring shape, severity band, KEV, EPSS,
 * which advisories and exploit sources name it). Writers expand one CVE at a time from the
 * plan (detail.ts), so the corpus is never held in memory.
 *
 * Shares at any N (of all CVEs): ~21 % v2-only, ~5 % rejected, ~3 % no signal, ~2 % v4-only,
 * ~1 % vendor-severity-only, ~0.45 % KEV, EPSS for ~98 % of non-rejected.
 */
import type { Band } from './cvss.ts';
import { type Product, ProductCatalog, catalogSize } from './products.ts';
import { rngFor, seedHash } from './random.ts';
import { CORPUS_NOW, type CorpusCounts, corpusCounts, cvesPerYear } from './scale.ts';

/** Scoring shape of a CVE: which CVSS versions exist and who published them. */
export const KIND = {
  REJECTED: 0,
  NO_SIGNAL: 1,
  V2_ONLY: 2,
  /** NVD analyst v3 only (the CNA published no score). Old CVEs re-analysed also land here. */
  V3_NVD_ONLY: 3,
  /** CNA v3 only: NVD has not scored it (Awaiting Analysis, Deferred, …). */
  V3_CNA_ONLY: 4,
  V3_BOTH_AGREE: 5,
  V3_BOTH_DISAGREE: 6,
  /** CNA v4.0, no v3 from anyone. */
  V4_ONLY: 7,
  /** No CVSS anywhere; a vendor advisory states a severity band. */
  VENDOR_ONLY: 8,
  /** No NVD/CNA CVSS; the GHSA record carries a vector. */
  GHSA_VECTOR_ONLY: 9,
  /** No CVSS anywhere; the GHSA record has only its database severity. */
  GHSA_BAND_ONLY: 10,
} as const;
export type Kind = (typeof KIND)[keyof typeof KIND];

export const FLAG = {
  KEV: 1 << 0,
  /** CISA ADP (Vulnrichment) container with SSVC. */
  SSVC: 1 << 1,
  /** SSVC Exploitation `active` without a KEV entry (svc_kev evidence). */
  SSVC_ACTIVE: 1 << 2,
  /** MSRC says `Exploited:Yes`. */
  MSRC_EXPLOITED: 1 << 3,
  GHSA: 1 << 4,
  REDHAT: 1 << 5,
  SUSE: 1 << 6,
  CISCO: 1 << 7,
  SIEMENS: 1 << 8,
  CISA: 1 << 9,
  MSRC: 1 << 10,
  EXPLOITDB: 1 << 11,
  METASPLOIT: 1 << 12,
  NUCLEI: 1 << 13,
  POC: 1 << 14,
  EPSS: 1 << 15,
  /** CISA ADP adds its own CVSS v3.1 because the CNA gave none. */
  ADP_CVSS: 1 << 16,
} as const;

export const ANY_EXPLOIT = FLAG.EXPLOITDB | FLAG.METASPLOIT | FLAG.NUCLEI | FLAG.POC;

/** Modern CVEs with a v3 score: who scored it (disagreements ~15 % of v3-scored CVEs). */
const V3_SHAPES: Array<[Kind, number]> = [[KIND.V3_NVD_ONLY, 30], [KIND.V3_CNA_ONLY, 20], [KIND.V3_BOTH_AGREE, 35], [KIND.V3_BOTH_DISAGREE, 15]];
/** Severity bands: NVD v3 (CRITICAL ~14 %), NVD v2 (no CRITICAL), vendor ratings. */
const V3_BANDS: Array<[Band, number]> = [[0, 4], [1, 42], [2, 40], [3, 14]];
const V2_BANDS: Array<[Band, number]> = [[0, 8], [1, 60], [2, 32]];
const VENDOR_BANDS: Array<[Band, number]> = [[0, 10], [1, 50], [2, 33], [3, 7]];

export const DAY = 86_400_000;
/** MSRC's CVRF API starts in April 2016; CISA's KEV catalog on 2021-11-03. */
export const MSRC_START = Date.UTC(2016, 3, 1);
export const KEV_START = Date.UTC(2021, 10, 3);

export class CorpusPlan {
  readonly n: number;
  readonly seed: string;
  readonly root: number;
  readonly counts: CorpusCounts;
  readonly catalog: ProductCatalog;
  readonly year: Uint16Array;
  readonly number: Uint32Array;
  readonly published: Float64Array;
  readonly product: Uint32Array;
  readonly kind: Uint8Array;
  readonly band: Uint8Array;
  readonly flags: Uint32Array;
  /** EPSS probability and percentile, rounded to 5 decimals (0 when absent). */
  readonly epss: Float64Array;
  readonly percentile: Float64Array;

  constructor(n: number, seed: string) {
    this.n = n;
    this.seed = seed;
    this.root = seedHash(seed);
    this.counts = corpusCounts(n);
    this.catalog = new ProductCatalog(this.root, catalogSize(n));
    this.year = new Uint16Array(n);
    this.number = new Uint32Array(n);
    this.published = new Float64Array(n);
    this.product = new Uint32Array(n);
    this.kind = new Uint8Array(n);
    this.band = new Uint8Array(n);
    this.flags = new Uint32Array(n);
    this.epss = new Float64Array(n);
    this.percentile = new Float64Array(n);
    this.planIds();
    this.planProducts();
    this.planKinds();
    this.planBands();
    this.planKev();
    this.planSignals();
    this.planAdvisoryPools();
    this.planExploits();
    this.planEpss();
  }

  cveId(i: number): string {
    return `CVE-${this.year[i]}-${String(this.number[i]).padStart(4, '0')}`;
  }

  productOf(i: number): Product {
    return this.catalog.get(this.product[i]!);
  }

  has(i: number, flag: number): boolean {
    return (this.flags[i]! & flag) !== 0;
  }

  isModern(i: number): boolean {
    return this.year[i]! >= 2016;
  }

  /** Ids in year order; numbers rise with gaps; publication times rise through the year. */
  private planIds(): void {
    const rng = rngFor(this.root, 'plan-ids');
    let i = 0;
    for (const [year, count] of cvesPerYear(this.n)) {
      let num = rng.int(1, 9);
      const start = Date.UTC(year, 0, 1);
      const end = Math.min(Date.UTC(year + 1, 0, 1), CORPUS_NOW - DAY);
      for (let k = 0; k < count; k++, i++) {
        this.year[i] = year;
        this.number[i] = num;
        num += 1 + (rng.chance(0.5) ? 1 : 0) + (rng.chance(0.05) ? rng.int(2, 40) : 0);
        const t = start + ((end - start) * (k + rng.float())) / count;
        this.published[i] = Math.floor(t);
      }
    }
  }

  private planProducts(): void {
    const rng = rngFor(this.root, 'plan-products');
    for (let i = 0; i < this.n; i++) {
      let rank = this.catalog.sampleRank(rng);
      // AI/ML packages and WordPress plugins did not exist in the early years: redraw.
      for (let tries = 0; tries < 5; tries++) {
        const p = this.catalog.get(rank);
        const anachronism = (p.ai && this.year[i]! < 2016) || (p.kind === 'plugin' && this.year[i]! < 2008);
        if (!anachronism) break;
        rank = this.catalog.sampleRank(rng);
      }
      this.product[i] = rank;
    }
  }

  private planKinds(): void {
    const rng = rngFor(this.root, 'plan-kinds');
    const n = this.n;
    let recent = 0;
    let vendorEligible = 0;
    let libEligible = 0;
    for (let i = 0; i < n; i++) {
      if (this.year[i]! >= 2024) recent++;
      if (this.vendorOnlyEligible(i)) vendorEligible++;
      if (this.ghsaOnlyEligible(i)) libEligible++;
    }
    const rate = (share: number, eligible: number) => (eligible > 0 ? Math.min(0.6, (share * n) / (eligible * 0.95)) : 0);
    const pNoSignal = rate(0.03, recent);
    const pV4 = rate(0.02, recent);
    const pVendor = rate(0.01, vendorEligible);
    const pGhsaVector = rate(0.004, libEligible);
    const pGhsaBand = rate(0.002, libEligible);
    for (let i = 0; i < n; i++) {
      const year = this.year[i]!;
      const p = this.productOf(i);
      let kind: Kind;
      if (rng.chance(0.05)) kind = KIND.REJECTED;
      else if (year < 2016) kind = rng.chance(0.02) ? KIND.V3_NVD_ONLY : KIND.V2_ONLY;
      else {
        // One uniform draw against stacked probabilities, each only where eligible.
        const u = rng.float();
        const recentCve = year >= 2024;
        const lib = this.ghsaOnlyEligible(i);
        let acc = 0;
        if (recentCve && u < (acc += pNoSignal)) kind = KIND.NO_SIGNAL;
        else if (recentCve && u < (acc += pV4)) kind = KIND.V4_ONLY;
        else if (this.vendorOnlyEligible(i) && u < (acc += pVendor)) kind = KIND.VENDOR_ONLY;
        else if (lib && u < (acc += pGhsaVector)) kind = KIND.GHSA_VECTOR_ONLY;
        else if (lib && u < (acc += pGhsaBand)) kind = KIND.GHSA_BAND_ONLY;
        else {
          kind = rng.weighted(V3_SHAPES);
          // The Linux kernel CNA publishes no CVSS; Microsoft always does.
          if (p.cna === 'linux') kind = KIND.V3_NVD_ONLY;
          else if (p.cna === 'microsoft' && kind === KIND.V3_NVD_ONLY) kind = KIND.V3_BOTH_AGREE;
        }
      }
      this.kind[i] = kind;
    }
  }

  /** Distro-packaged or Microsoft CVEs: the vendors that state a band without CVSS. */
  private vendorOnlyEligible(i: number): boolean {
    const p = this.productOf(i);
    if (this.year[i]! < 2016) return false;
    return p.distro || (p.vendor === 'microsoft' && this.published[i]! >= MSRC_START);
  }

  private ghsaOnlyEligible(i: number): boolean {
    return this.year[i]! >= 2017 && this.productOf(i).ecosystem !== null;
  }

  private planBands(): void {
    const rng = rngFor(this.root, 'plan-bands');
    for (let i = 0; i < this.n; i++) {
      const kind = this.kind[i]!;
      let band: Band;
      if (kind === KIND.REJECTED || kind === KIND.NO_SIGNAL) band = 0;
      else if (kind === KIND.V2_ONLY) band = rng.weighted(V2_BANDS);
      else if (kind === KIND.VENDOR_ONLY) band = rng.weighted(VENDOR_BANDS);
      else band = rng.weighted(V3_BANDS);
      this.band[i] = band;
    }
  }

  private scored(i: number): boolean {
    const k = this.kind[i]!;
    return k !== KIND.REJECTED && k !== KIND.NO_SIGNAL;
  }

  /**
   * Exactly `counts.kev` CVEs, weighted towards severe, exploitable products and recent years
   * (Efraimidis–Spirakis weighted sampling without replacement: smallest −ln(u)/w wins).
   */
  private planKev(): void {
    const rng = rngFor(this.root, 'plan-kev');
    const keys: Array<[number, number]> = [];
    for (let i = 0; i < this.n; i++) {
      if (!this.scored(i) || this.kind[i] === KIND.GHSA_BAND_ONLY) continue;
      const y = this.year[i]!;
      const p = this.productOf(i);
      let w = [0.1, 0.5, 3, 8][this.band[i]!]!;
      w *= y < 2005 ? 0.3 : y < 2016 ? 0.8 : y < 2020 ? 1.5 : 1.8;
      if (p.kind === 'network' || p.kind === 'os' || p.vendor === 'microsoft') w *= 4;
      else if (p.kind === 'plugin') w *= 0.15;
      else if (p.kind === 'lib') w *= 0.5;
      if (this.published[i]! > CORPUS_NOW - 20 * DAY) w *= 0.2;
      keys.push([-Math.log(1 - rng.float()) / w, i]);
    }
    keys.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    for (const [, i] of keys.slice(0, this.counts.kev)) this.flags[i]! |= FLAG.KEV;
  }

  private planSignals(): void {
    const rng = rngFor(this.root, 'plan-signals');
    const ghsaTarget = this.counts.ghsa - this.counts.ghsaWithoutCve;
    let forced = 0;
    let eligible = 0;
    for (let i = 0; i < this.n; i++) {
      const k = this.kind[i]!;
      if (k === KIND.GHSA_VECTOR_ONLY || k === KIND.GHSA_BAND_ONLY) forced++;
      else if (this.ghsaEligible(i)) eligible++;
    }
    const pGhsa = eligible > 0 ? Math.min(1, Math.max(0, ghsaTarget - forced) / eligible) : 0;
    for (let i = 0; i < this.n; i++) {
      const k = this.kind[i]!;
      if (!this.scored(i)) continue;
      const kev = this.has(i, FLAG.KEV);
      const p = this.productOf(i);
      let f = 0;
      if (k === KIND.GHSA_VECTOR_ONLY || k === KIND.GHSA_BAND_ONLY || (this.ghsaEligible(i) && rng.chance(pGhsa))) f |= FLAG.GHSA;
      const ssvc = (this.year[i]! >= 2024 && rng.chance(0.6)) || (kev && rng.chance(0.85));
      if (ssvc) {
        f |= FLAG.SSVC;
        if (!kev && rng.chance(0.008)) f |= FLAG.SSVC_ACTIVE;
        if (k === KIND.V3_NVD_ONLY && rng.chance(0.35)) f |= FLAG.ADP_CVSS;
      }
      if (p.vendor === 'microsoft' && this.published[i]! >= MSRC_START) {
        f |= FLAG.MSRC;
        if (kev || rng.chance(0.015)) f |= FLAG.MSRC_EXPLOITED;
      }
      this.flags[i]! |= f;
    }
  }

  /** Open-source packages that GitHub reviews; kinds without any CVSS are kept out. */
  private ghsaEligible(i: number): boolean {
    const k = this.kind[i]!;
    if (!this.scored(i) || k === KIND.VENDOR_ONLY) return false;
    return this.productOf(i).ecosystem !== null && this.year[i]! >= 2012;
  }

  /**
   * Which CVEs each CSAF vendor covers. Red Hat and SUSE ship distro packages; Cisco and
   * Siemens their own products plus some third-party components; CISA industrial products.
   * Vendor-severity-only CVEs are always covered by Red Hat or SUSE (or MSRC for Microsoft).
   */
  private planAdvisoryPools(): void {
    const rng = rngFor(this.root, 'plan-advisories');
    for (let i = 0; i < this.n; i++) {
      if (!this.scored(i)) continue;
      const p = this.productOf(i);
      const y = this.year[i]!;
      let f = 0;
      if (this.kind[i] === KIND.VENDOR_ONLY) {
        if (p.vendor !== 'microsoft') f |= rng.chance(0.7) ? FLAG.REDHAT | (rng.chance(0.25) ? FLAG.SUSE : 0) : FLAG.SUSE;
      } else if (p.distro && y >= 2003) {
        if (rng.chance(0.45)) f |= FLAG.REDHAT;
        if (y >= 2010 && rng.chance(0.35)) f |= FLAG.SUSE;
        if (rng.chance(0.01)) f |= FLAG.CISCO;
        if (rng.chance(0.02)) f |= FLAG.SIEMENS;
      }
      if (p.vendor === 'cisco' && rng.chance(0.9)) f |= FLAG.CISCO;
      if (p.vendor === 'siemens' && rng.chance(0.9)) f |= FLAG.SIEMENS;
      if (p.kind === 'ics' && y >= 2010 && rng.chance(0.7)) f |= FLAG.CISA;
      this.flags[i]! |= f;
    }
  }

  /** Exploit sources: a few % of CVEs, far more for KEV and severe CVEs. */
  private planExploits(): void {
    const rng = rngFor(this.root, 'plan-exploits');
    for (let i = 0; i < this.n; i++) {
      if (!this.scored(i)) continue;
      const y = this.year[i]!;
      const kev = this.has(i, FLAG.KEV);
      const sev = [0.4, 0.8, 1.4, 2.2][this.band[i]!]!;
      const kind = this.productOf(i).kind;
      let f = 0;
      const edbYear = y < 2016 ? 2.2 : y < 2021 ? 0.8 : 0.25;
      const web = kind === 'web' || kind === 'plugin' ? 1.5 : 1;
      if (rng.chance(kev ? 0.4 : 0.018 * sev * edbYear * web)) f |= FLAG.EXPLOITDB;
      if (rng.chance(kev ? 0.3 : 0.003 * sev * (y < 2008 ? 0.5 : 1))) f |= FLAG.METASPLOIT;
      if (rng.chance(kev ? 0.35 : (y >= 2010 ? 0.006 : 0.001) * sev * web)) f |= FLAG.NUCLEI;
      if (rng.chance(kev ? 0.6 : (y >= 2017 ? 0.028 : 0.004) * sev)) f |= FLAG.POC;
      this.flags[i]! |= f;
    }
  }

  /**
   * EPSS: log-normal base (most < 0.01, a few % ≥ 0.1, fewer ≥ 0.5), raised for exploit
   * records, KEV and severity. Percentile = share of scored CVEs with the same or a lower
   * score. ~2 % of non-rejected CVEs have none (the newest ones, and a random few).
   */
  private planEpss(): void {
    const rng = rngFor(this.root, 'plan-epss');
    const scores: number[] = [];
    for (let i = 0; i < this.n; i++) {
      const k = this.kind[i]!;
      if (k === KIND.REJECTED) continue;
      const fresh = this.published[i]! > CORPUS_NOW - 3 * DAY;
      const missing = fresh ? 0.9 : k === KIND.NO_SIGNAL ? 0.35 : 0.008;
      if (rng.chance(missing)) continue;
      let p = Math.exp(-6.3 + 2.0 * rng.normal());
      p *= [0.5, 0.9, 1.3, 2][this.band[i]!]!;
      if (this.flags[i]! & ANY_EXPLOIT) p *= 4 + 8 * rng.float();
      if (this.has(i, FLAG.KEV)) p = Math.max(p, 0.05 + 0.92 * Math.sqrt(rng.float()));
      p = Math.min(0.97, Math.max(0.00001, p));
      const rounded = Math.round(p * 1e5) / 1e5;
      this.epss[i] = rounded;
      this.flags[i]! |= FLAG.EPSS;
      scores.push(rounded);
    }
    const sorted = Float64Array.from(scores).sort();
    for (let i = 0; i < this.n; i++) {
      if (!this.has(i, FLAG.EPSS)) continue;
      // Upper bound: count of scores ≤ this one.
      const v = this.epss[i]!;
      let lo = 0;
      let hi = sorted.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (sorted[mid]! <= v) lo = mid + 1;
        else hi = mid;
      }
      this.percentile[i] = Math.round((lo / sorted.length) * 1e5) / 1e5;
    }
  }
}
