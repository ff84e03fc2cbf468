/**
 * What the shared store (sql-store.ts) needs from a database: parameterised queries written
 * with PostgreSQL's `$1, $2…` placeholders, transactions, and running a migration script.
 * sqlite.ts and postgres.ts implement it; each converts its values to plain JS here (timestamps
 * to ISO strings, JSON columns to text), so the store reads rows the same way from both.
 */
export type SqlValue = string | number | null;
export type Row = Record<string, unknown>;

export interface Queryable {
  query(sql: string, params?: readonly SqlValue[]): Promise<Row[]>;
}

export interface SqlDriver extends Queryable {
  readonly kind: 'sqlite' | 'postgres';
  /** Runs `fn` in one transaction (serialised with every other use of the driver for SQLite). */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs a migration: the script, then the version row, in one transaction under a lock. */
  migrate(migrations: readonly { version: number; name: string; sql: string }[]): Promise<number>;
  close(): Promise<void>;
}
