/**
 * The CVE columns the list filters and sorts read, as typed arrays indexed by `doc` (see
 * open.ts), with the order of each sort precomputed. A filtered page is then a scan of a few
 * small arrays in the wanted order, and its exact count a scan of 340,000 entries (~ms), where
 * the same in DuckDB costs a query each for the page and the count (DESIGN §8: filtered list
 * p50 ≤ 20 ms). Searches and the vendor match stay in DuckDB (they need the index tables).
 * About 50 bytes per CVE.
 */
import { SEVERITY_CODES, type DocColumns } from '../../cli/build/serving.ts';

export { SEVERITY_CODES };

export type SortKey = 'epss' | 'severity' | 'cvss_v3_score';

export class CveColumns {
  private constructor(
    /** 1 for active CVEs, 0 for rejected ones. */
    readonly active: Uint8Array,
    /** `severity` (NVD v3 label) as SEVERITY_CODES. */
    readonly severity: Uint8Array,
    /** `service_severity` as SEVERITY_CODES. */
    readonly serviceSeverity: Uint8Array,
    /** `max_cvss`; NaN when the CVE holds no CVSS (never matches a minimum). Float64: a
     *  Float32 7.1 is below the 7.1 of a request. */
    readonly maxCvss: Float64Array,
    readonly inKev: Uint8Array,
    /** UTC publication year; 0 when unknown. */
    readonly year: Uint16Array,
    /** `last_modified` in microseconds since the epoch; NaN when unknown. */
    readonly lastModifiedMicros: Float64Array,
    /** Docs in the order of each sort (descending, NULLs last, ties by cve_id descending). */
    readonly orders: Record<SortKey, Int32Array>,
  ) {}

  get size(): number {
    return this.active.length;
  }

  private yearRanges: Map<number, [number, number] | null> | undefined;
  private ranks: Partial<Record<SortKey, Int32Array>> = {};

  /**
   * The docs of one publication year as a range [start, end): docs are in publication order, so
   * a year's CVEs are consecutive. An empty range when the year has none; null when they are
   * not consecutive (never expected: the caller then walks every doc).
   */
  yearRange(year: number): [number, number] | null {
    if (!this.yearRanges) {
      const first = new Map<number, number>();
      const last = new Map<number, number>();
      const count = new Map<number, number>();
      this.year.forEach((y, doc) => {
        if (!first.has(y)) first.set(y, doc);
        last.set(y, doc);
        count.set(y, (count.get(y) ?? 0) + 1);
      });
      this.yearRanges = new Map();
      for (const [y, start] of first) {
        const end = last.get(y)! + 1;
        this.yearRanges.set(y, end - start === count.get(y) ? [start, end] : null);
      }
    }
    const range = this.yearRanges.get(year);
    return range === undefined ? [0, 0] : range;
  }

  /** Position of each doc in a sort's order (the inverse of `orders[sort]`), made on first use. */
  rank(sort: SortKey): Int32Array {
    let rank = this.ranks[sort];
    if (!rank) {
      const order = this.orders[sort];
      rank = new Int32Array(order.length);
      for (let i = 0; i < order.length; i++) rank[order[i]!] = i;
      this.ranks[sort] = rank;
    }
    return rank;
  }

  /** The columns of a serving folder's columns.bin (cli/build/serving.ts): views, no copy. */
  static from(columns: DocColumns): CveColumns {
    return new CveColumns(
      columns.active,
      columns.severity,
      columns.service_severity,
      columns.max_cvss,
      columns.in_kev,
      columns.year,
      columns.last_modified_us,
      { epss: columns.order_epss, severity: columns.order_severity, cvss_v3_score: columns.order_cvss_v3 },
    );
  }
}
