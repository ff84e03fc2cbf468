/**
 * The CVE filters shared by the list (`/cves`), the export and the vendor match, as SQL over
 * the in-memory `cves` table (api/snapshot/open.ts). Enumerated and numeric values are
 * validated before they get here and are written into the SQL as literals (DuckDB can then
 * prune on them); free values are bound as parameters through SqlParams.
 */
import type { DuckDBValue } from '@duckdb/node-api';

export const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'NONE'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const STATUSES = ['active', 'rejected', 'all'] as const;
export type Status = (typeof STATUSES)[number];

export interface CveFilter {
  status: Status;
  /** Wanted severities; null when not filtering. */
  severities: Severity[] | null;
  /** `nvd`: the record's `severity` (NVD CVSS v3 label); `svc`: `service_severity`. */
  severityBasis: 'nvd' | 'svc';
  /** Lowest `max_cvss` (the highest of v3/v4/v2 held); null when not filtering. */
  minCvss: number | null;
  kevOnly: boolean;
  year: number | null;
  /** Inclusive lower bound on `last_modified`, microseconds (UTC). */
  sinceMicros: bigint | null;
  /** Exclusive upper bound on `last_modified`, microseconds (UTC). */
  untilMicros: bigint | null;
}

export const NO_FILTER: CveFilter = {
  status: 'active',
  severities: null,
  severityBasis: 'nvd',
  minCvss: null,
  kevOnly: false,
  year: null,
  sinceMicros: null,
  untilMicros: null,
};

/** True when the filter selects by more than status (so the unfiltered shortcuts do not apply). */
export function filtersBeyondStatus(f: CveFilter): boolean {
  return f.severities !== null || f.minCvss !== null || f.kevOnly || f.year !== null || f.sinceMicros !== null || f.untilMicros !== null;
}

/** Positional parameters (`$1`, `$2`, …) collected while SQL is written. */
export class SqlParams {
  readonly values: DuckDBValue[] = [];
  add(value: DuckDBValue): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

export function statusSql(status: Status, column: string): string | null {
  if (status === 'all') return null;
  return `${column} = '${status}'`;
}

/** WHERE conditions (joined with AND by the caller) for `f`, reading `cves` as `alias`. */
export function filterConditions(f: CveFilter, alias: string, params: SqlParams): string[] {
  const where: string[] = [];
  const status = statusSql(f.status, `${alias}.status`);
  if (status) where.push(status);
  if (f.severities) {
    const column = f.severityBasis === 'svc' ? 'service_severity' : 'severity';
    // A record with no v3 label has severity NONE (sql/04_records.sql); NULL would be the same.
    const values = f.severities.map((s) => `'${s}'`).join(', ');
    where.push(
      f.severities.includes('NONE') ? `coalesce(${alias}.${column}, 'NONE') IN (${values})` : `${alias}.${column} IN (${values})`,
    );
  }
  if (f.minCvss !== null) where.push(`${alias}.max_cvss >= ${Number(f.minCvss)}`);
  if (f.kevOnly) where.push(`${alias}.in_kev`);
  if (f.year !== null) where.push(`${alias}.year = ${Math.trunc(f.year)}`);
  if (f.sinceMicros !== null) where.push(`${alias}.last_modified >= make_timestamp(CAST(${params.add(f.sinceMicros)} AS BIGINT))`);
  if (f.untilMicros !== null) where.push(`${alias}.last_modified < make_timestamp(CAST(${params.add(f.untilMicros)} AS BIGINT))`);
  return where;
}
