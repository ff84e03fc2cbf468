/**
 * What every resource query of `api/queries/` shares: the slice of an open snapshot a query
 * needs, row reading, the SQL spellings of the API's timestamp and short-text formats, and the
 * execution budget for best-effort work.
 */
import type { DuckDBConnection, DuckDBResultReader, DuckDBValue } from '@duckdb/node-api';

/**
 * Connections of a snapshot for queries that hold one of their own (api/snapshot/pool.ts): reads
 * there run in parallel with other requests' reads and use prepared statements, and a read with
 * a deadline can be interrupted without touching anyone else's query.
 */
export interface QueryPool {
  read(sql: string, params?: readonly DuckDBValue[]): Promise<DuckDBResultReader>;
  /** Past `deadline` (a performance.now() time) the query is interrupted and a symbol returned. */
  readBy(deadline: number, sql: string, params?: readonly DuckDBValue[]): Promise<DuckDBResultReader | symbol>;
}

/**
 * The part of an open snapshot a query reads (the server's ServingSnapshot, or openSnapshot's
 * OpenSnapshot in tests). Queries take this, not a whole snapshot, so tests can hand them any
 * DuckDB connection holding the tables.
 */
export interface SnapshotReader {
  /** Shared by every request; DuckDB runs concurrent queries on it one after the other. */
  readonly connection: DuckDBConnection;
  /** Side tables that could not be loaded; they exist empty (see openSnapshot). */
  readonly unreadableTables: ReadonlySet<string>;
  /** When present, queries use it instead of `connection`. */
  readonly pool?: QueryPool;
  /** When present, short CVE forms are cut from the record JSON instead of read with SQL. */
  readonly records?: CveRecordSource;
}

/**
 * The snapshot's CVE records in memory (api/snapshot/records.ts), addressed by `doc`: the row's
 * position in the published order, also a column of the `cves` table.
 */
export interface CveRecordSource {
  /** The record JSON of one doc, as UTF-8 bytes. */
  bytes(doc: number): Uint8Array;
}

/** Rows as JSON-ready objects. Callers cast BIGINT to INTEGER in SQL so counts are numbers. */
export async function selectRows<T>(reader: SnapshotReader, sql: string, params: DuckDBValue[] = []): Promise<T[]> {
  const result = reader.pool ? await reader.pool.read(sql, params) : await reader.connection.runAndReadAll(sql, params);
  return result.getRowObjectsJson() as unknown as T[];
}

/**
 * Rows of a best-effort query under an execution budget (DESIGN §6: per-query budget, default
 * 250 ms), or OUT_OF_BUDGET. On a pool the query is interrupted at the deadline, as the API
 * core's budgeted counts are; on a bare connection (shared, never interrupted) the answer is
 * given up at the deadline and the bounded query left to finish. A budget of 0 or less means
 * "no time at all": the query does not start.
 */
export async function selectRowsWithin<T>(
  reader: SnapshotReader,
  budgetMs: number,
  sql: string,
  params: DuckDBValue[] = [],
): Promise<T[] | typeof OUT_OF_BUDGET> {
  if (!(budgetMs > 0)) return OUT_OF_BUDGET;
  if (reader.pool) {
    const result = await reader.pool.readBy(performance.now() + budgetMs, sql, params);
    return typeof result === 'symbol' ? OUT_OF_BUDGET : (result.getRowObjectsJson() as unknown as T[]);
  }
  return withinBudget(budgetMs, () => selectRows<T>(reader, sql, params));
}

/** SQL for a TIMESTAMP column as the API spells times everywhere (as in the CVE record JSON). */
export function isoTimestampSql(column: string): string {
  return `strftime(${column}, '%Y-%m-%dT%H:%M:%S.%gZ')`;
}

export const SHORT_TEXT_MAX = 200;

/** SQL cutting a text to at most SHORT_TEXT_MAX characters, marking the cut with an ellipsis. */
export function shortTextSql(column: string, max = SHORT_TEXT_MAX): string {
  return `CASE WHEN length(${column}) > ${max} THEN rtrim(left(${column}, ${max - 1})) || '…' ELSE ${column} END`;
}

/** `$n, $n+1, …` placeholders for an IN list of `count` values, numbered from `first`. */
export function placeholders(first: number, count: number): string {
  return Array.from({ length: count }, (_, i) => `$${first + i}`).join(', ');
}

/** `YYYY-MM-DD` moved by whole days (UTC calendar). */
export function shiftDay(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** The API path of one vendor advisory; ids carry `:` and `/`, so both parts are encoded. */
export function vendorAdvisoryApiPath(vendor: string, advisoryId: string): string {
  return `/api/v1/public/vendor-advisories/${encodeURIComponent(vendor)}/${encodeURIComponent(advisoryId)}`;
}

/** Returned by withinBudget when the work did not finish in time. */
export const OUT_OF_BUDGET: unique symbol = Symbol('out of budget');

/**
 * Runs best-effort work under a budget: past it the caller gets OUT_OF_BUDGET and answers
 * without the result, and the work is left to finish on its own. A budget of 0 or less means
 * "no time at all".
 */
export async function withinBudget<T>(budgetMs: number, work: () => Promise<T>): Promise<T | typeof OUT_OF_BUDGET> {
  if (!(budgetMs > 0)) return OUT_OF_BUDGET;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<typeof OUT_OF_BUDGET>((resolve) => {
    timer = setTimeout(() => resolve(OUT_OF_BUDGET), budgetMs);
  });
  const running = work();
  // A late failure after the budget expired must not surface as an unhandled rejection.
  running.catch(() => undefined);
  try {
    return await Promise.race([running, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A snapshot table an answer depends on could not be loaded (openSnapshot left it empty and
 * named it). Routes answer 503 naming the table rather than an empty answer that would read as
 * "none exist".
 */
export class TableUnavailableError extends Error {
  readonly table: string;
  constructor(table: string) {
    super(`snapshot table ${table} could not be read`);
    this.name = 'TableUnavailableError';
    this.table = table;
  }
}

/** Throws TableUnavailableError for the first of `tables` the snapshot could not load. */
export function requireTables(reader: SnapshotReader, ...tables: string[]): void {
  const missing = tables.find((t) => reader.unreadableTables.has(t));
  if (missing !== undefined) throw new TableUnavailableError(missing);
}
