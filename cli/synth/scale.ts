/**
 * How big each part of the corpus is for N CVEs. The full benchmark scale (DESIGN §8) is
 * 340,000 CVEs; every other count is proportional to N, with a floor so that a small corpus
 * (tests, N = 2,000) still exercises each feature.
 */

export const FULL_SCALE_CVES = 340_000;

/** The fixed "now" of every corpus: no clock is read, so runs are reproducible. */
export const CORPUS_NOW = Date.UTC(2026, 9, 1, 6, 0, 0); // 2026-10-01T06:00:00Z

/** Full-scale counts from DESIGN §8 and the task brief. */
const FULL = {
  kev: 1_500,
  ghsa: 25_000,
  vendorAdvisories: 60_000,
} as const;

export function proportional(n: number, fullCount: number, minimum: number): number {
  return Math.max(minimum, Math.round((n * fullCount) / FULL_SCALE_CVES));
}

/** Share of all CSAF advisories per vendor folder (Red Hat and SUSE publish the most). */
export const CSAF_VENDOR_SHARES = {
  redhat: 0.45,
  suse: 0.33,
  cisco: 0.06,
  siemens: 0.06,
  cisa: 0.1,
} as const;

export type CsafVendor = keyof typeof CSAF_VENDOR_SHARES;
export const CSAF_VENDORS = Object.keys(CSAF_VENDOR_SHARES) as CsafVendor[];

export interface CorpusCounts {
  cves: number;
  kev: number;
  ghsa: number;
  /** GHSA records that name no CVE yet (~10 %). */
  ghsaWithoutCve: number;
  csaf: Record<CsafVendor, number>;
}

export function corpusCounts(n: number): CorpusCounts {
  const ghsa = proportional(n, FULL.ghsa, 20);
  const totalCsaf = proportional(n, FULL.vendorAdvisories, 25);
  const csaf = {} as Record<CsafVendor, number>;
  for (const vendor of CSAF_VENDORS) csaf[vendor] = Math.max(4, Math.round(totalCsaf * CSAF_VENDOR_SHARES[vendor]));
  return {
    cves: n,
    kev: proportional(n, FULL.kev, 8),
    ghsa,
    ghsaWithoutCve: Math.max(2, Math.round(ghsa * 0.1)),
    csaf,
  };
}

export const FIRST_YEAR = 1999;
export const LAST_YEAR = 2026;

/**
 * Relative CVE volume per publication year, 1999–2026 (shaped on NVD's yearly counts: a few
 * thousand a year until 2016, then steep growth to ~40k; 2026 is a partial year). The years up
 * to 2015 hold ~22 % of all CVEs: almost all of them carry only a CVSS v2 metric.
 */
const YEAR_WEIGHTS: Record<number, number> = {
  1999: 1600, 2000: 1250, 2001: 1550, 2002: 2150, 2003: 1550, 2004: 2650, 2005: 4700,
  2006: 6700, 2007: 6600, 2008: 5700, 2009: 5100, 2010: 4700, 2011: 4250, 2012: 5400,
  2013: 5300, 2014: 8000, 2015: 6600, 2016: 6500, 2017: 14600, 2018: 16500, 2019: 17300,
  2020: 18400, 2021: 20200, 2022: 25000, 2023: 29000, 2024: 40000, 2025: 42000, 2026: 30000,
};

/** CVEs per year for N in total (largest-remainder rounding: the counts sum to N exactly). */
export function cvesPerYear(n: number): Map<number, number> {
  const years = Object.keys(YEAR_WEIGHTS).map(Number);
  const total = years.reduce((a, y) => a + YEAR_WEIGHTS[y]!, 0);
  const exact = years.map((y) => (n * YEAR_WEIGHTS[y]!) / total);
  const counts = exact.map(Math.floor);
  let left = n - counts.reduce((a, c) => a + c, 0);
  const order = exact.map((e, i) => [e - Math.floor(e), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const [, i] of order) {
    if (left-- <= 0) break;
    counts[i]!++;
  }
  return new Map(years.map((y, i) => [y, counts[i]!]));
}
