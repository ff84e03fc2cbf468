/**
 * What every resource query of `api/queries/` shares: the slice of an open snapshot a query
 * needs, row reading, the SQL spellings of the API's timestamp and short-text formats, and the
 * execution budget for best-effort work.
 */
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';

/**
 * The part of an open snapshot (`api/snapshot/open.ts` OpenSnapshot) a query reads. Queries take
 * this, not the whole snapshot, so tests can hand them any DuckDB connection holding the tables.
 */
export interface SnapshotReader {
  readonly connection: DuckDBConnection;
  /** Side tables that could not be loaded; they exist empty (see openSnapshot). */
  readonly unreadableTables: ReadonlySet<string>;
}

/** Rows as JSON-ready objects. Callers cast BIGINT to INTEGER in SQL so counts are numbers. */
export async function selectRows<T>(connection: DuckDBConnection, sql: string, params: DuckDBValue[] = []): Promise<T[]> {
  const reader = await connection.runAndReadAll(sql, params);
  return reader.getRowObjectsJson() as unknown as T[];
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
 * Runs best-effort work under an execution budget (DESIGN §6: per-query budget, default 250 ms).
 * Past the budget the caller gets OUT_OF_BUDGET and answers without the result; the query is
 * left to finish on its own (it is bounded, and interrupting a connection shared by concurrent
 * requests would cancel their queries too). A budget of 0 or less means "no time at all".
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
