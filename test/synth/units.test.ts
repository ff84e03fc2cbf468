import { describe, expect, it } from 'vitest';
import { cvssBaseScore } from '../../cli/parse/common.ts';
import { pickVector } from '../../cli/synth/cvss.ts';
import { decimal5, githubEmptyArrays, isoZ, nvdTime } from '../../cli/synth/format.ts';
import { ProductCatalog, catalogSize } from '../../cli/synth/products.ts';
import { rngFor, seedHash } from '../../cli/synth/random.ts';
import { FULL_SCALE_CVES, corpusCounts, cvesPerYear } from '../../cli/synth/scale.ts';
import { csafFileName } from '../../cli/synth/writers/csaf-layout.ts';

describe('seeded randomness', () => {
  it('repeats a stream for the same seed and keys, and differs otherwise', () => {
    const draw = (seed: string, key: number) => Array.from({ length: 5 }, ((r) => () => r.u32())(rngFor(seedHash(seed), 'cve', key)));
    expect(draw('1', 7)).toEqual(draw('1', 7));
    expect(draw('1', 7)).not.toEqual(draw('1', 8));
    expect(draw('1', 7)).not.toEqual(draw('2', 7));
  });
});

describe('scale', () => {
  it('matches DESIGN §8 at full scale and keeps floors for small corpora', () => {
    const full = corpusCounts(FULL_SCALE_CVES);
    expect(full.kev).toBe(1_500);
    expect(full.ghsa).toBe(25_000);
    expect(Object.values(full.csaf).reduce((a, b) => a + b, 0)).toBe(60_000);
    const tiny = corpusCounts(50);
    expect(tiny.kev).toBeGreaterThanOrEqual(8);
    expect(Object.values(tiny.csaf).every((c) => c >= 4)).toBe(true);
  });

  it('spreads CVEs over 1999–2026 with recent years largest, summing to N', () => {
    const years = cvesPerYear(340_000);
    expect([...years.values()].reduce((a, b) => a + b, 0)).toBe(340_000);
    expect(years.get(1999)).toBeLessThan(3_000);
    expect(years.get(2025)).toBeGreaterThan(35_000);
    let upTo2015 = 0;
    for (const [y, c] of years) if (y <= 2015) upTo2015 += c;
    expect(upTo2015 / 340_000).toBeGreaterThan(0.2);
    expect(upTo2015 / 340_000).toBeLessThan(0.24);
  });
});

describe('product long tail', () => {
  it('gives the top products > 2,000 CVEs at full scale and the tail about one', () => {
    const catalog = new ProductCatalog(seedHash('1'), catalogSize(FULL_SCALE_CVES));
    for (let rank = 0; rank < 5; rank++) expect(catalog.share(rank) * FULL_SCALE_CVES).toBeGreaterThan(2_000);
    expect(catalog.share(catalog.products.length - 1) * FULL_SCALE_CVES).toBeLessThan(3);
  });
});

describe('CVSS vectors', () => {
  it('draws vectors of the requested band with the score the shared helper computes', () => {
    const rng = rngFor(1, 'test');
    for (const [band, severity] of [[0, 'LOW'], [1, 'MEDIUM'], [2, 'HIGH'], [3, 'CRITICAL']] as const) {
      const v = pickVector('3.1', band, rng);
      expect(v.severity).toBe(severity);
      expect(cvssBaseScore(v.vector)).toBe(v.score);
    }
    const v4 = pickVector('4.0', 2, rng);
    expect(v4.vector.startsWith('CVSS:4.0/')).toBe(true);
    expect(cvssBaseScore(v4.vector)).toBe(v4.score);
  });
});

describe('formats', () => {
  it('spells times the way each source does', () => {
    const t = Date.UTC(2023, 9, 10, 14, 15, 10, 977);
    expect(nvdTime(t)).toBe('2023-10-10T14:15:10.977');
    expect(isoZ(t)).toBe('2023-10-10T14:15:10.977Z');
  });

  it('writes EPSS decimals with at most 5 places and no trailing zeros', () => {
    expect(decimal5(0.9248)).toBe('0.9248');
    expect(decimal5(0.018)).toBe('0.018');
    expect(decimal5(0.00001)).toBe('0.00001');
    expect(decimal5(1)).toBe('1');
  });

  it('prints empty arrays the way GitHub does', () => {
    expect(githubEmptyArrays(JSON.stringify({ aliases: [] }, null, 2))).toBe('{\n  "aliases": [\n\n  ]\n}');
  });

  it('names CSAF files by the spec rule', () => {
    expect(csafFileName('RHSA-2019:1862')).toBe('rhsa-2019_1862.json');
    expect(csafFileName('SUSE-SU-2024:1234-1')).toBe('suse-su-2024_1234-1.json');
    expect(csafFileName('cisco-sa-iosxe-ABcd1234')).toBe('cisco-sa-iosxe-abcd1234.json');
  });
});
