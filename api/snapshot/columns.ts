/**
 * The CVE columns the list filters and sorts read, as typed arrays indexed by `doc` (see
 * open.ts), with the order of each sort precomputed. A filtered page is then a scan of a few
 * small arrays in the wanted order, and its exact count a scan of 340,000 entries (~ms), where
 * the same in DuckDB costs a query each for the page and the count (DESIGN §8: filtered list
 * p50 ≤ 20 ms). Searches and the vendor match stay in DuckDB (they need the index tables).
 * About 50 bytes per CVE.
 */
import type { DuckDBConnection } from '@duckdb/node-api';

/** Severity labels as small integers; NONE (and a missing label) is 0. */
export const SEVERITY_CODES: Record<string, number> = { NONE: 0, LOW: 1, MEDIUM: 2, HIGH: 3, CRITICAL: 4 };

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

  static async load(connection: DuckDBConnection): Promise<CveColumns> {
    const reader = await connection.runAndReadAll(
      `SELECT status = 'active', coalesce(severity, 'NONE'), coalesce(service_severity, 'NONE'),
              CAST(max_cvss AS DOUBLE), coalesce(in_kev, false), coalesce(year, 0),
              CAST(epoch_us(last_modified) AS DOUBLE), CAST(epss_score AS DOUBLE), CAST(service_score AS DOUBLE),
              CAST(cvss_v3_score AS DOUBLE), id_rank
       FROM cves ORDER BY doc`,
    );
    const [active, severity, serviceSeverity, maxCvss, inKev, year, lastModified, epss, serviceScore, cvssV3, idRank] = reader.getColumns() as [
      boolean[], string[], string[], (number | null)[], boolean[], number[], (number | null)[], (number | null)[], (number | null)[], (number | null)[], number[],
    ];
    const code = (label: string) => SEVERITY_CODES[label] ?? 0;
    const rank = Int32Array.from(idRank);
    const orderBy = (values: (number | null)[]): Int32Array => {
      const key = Float64Array.from(values, (v) => (v === null ? Number.NEGATIVE_INFINITY : v));
      return Int32Array.from({ length: values.length }, (_, doc) => doc).sort((a, b) => key[b]! - key[a]! || rank[a]! - rank[b]!);
    };
    return new CveColumns(
      Uint8Array.from(active, (v) => (v ? 1 : 0)),
      Uint8Array.from(severity, code),
      Uint8Array.from(serviceSeverity, code),
      Float64Array.from(maxCvss, (v) => (v === null ? Number.NaN : v)),
      Uint8Array.from(inKev, (v) => (v ? 1 : 0)),
      Uint16Array.from(year),
      Float64Array.from(lastModified, (v) => (v === null ? Number.NaN : v)),
      { epss: orderBy(epss), severity: orderBy(serviceScore), cvss_v3_score: orderBy(cvssV3) },
    );
  }
}
