/**
 * The PostgreSQL driver (`--pulse-db postgres://…`): several hosts — every replica and the
 * notifier — share one database. Timestamps come back as ISO strings and JSONB as text, like
 * the SQLite driver's. Migrations run under an advisory lock, so replicas starting together
 * apply each one once.
 */
import pg from 'pg';
import { PulseUnavailableError } from '../errors.ts';
import type { Queryable, Row, SqlDriver, SqlValue } from './driver.ts';

const TIMESTAMPTZ_OID = 1184;
const JSONB_OID = 3802;
const INT8_OID = 20;
/** Any constant: the advisory lock key that serialises migrations. */
const MIGRATION_LOCK = 7_302_447;

function typeParser(oid: number, format?: string): (value: string) => unknown {
  if (oid === TIMESTAMPTZ_OID) return (value) => new Date(value).toISOString();
  if (oid === JSONB_OID) return (value) => value;
  if (oid === INT8_OID) return (value) => Number(value);
  return pg.types.getTypeParser(oid, (format ?? 'text') as 'text');
}

/**
 * A failure to reach the database (refused, reset, unresolvable, shut down: SQLSTATE classes 08
 * and 57P), as opposed to a query's own error: the service is unavailable for now (a 503 to
 * callers, a page saying so), nothing was changed.
 */
function unreachable(err: unknown): boolean {
  const code = String((err as { code?: unknown }).code ?? '');
  return (
    /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE)$/.test(code) ||
    /^(08|57P)/.test(code) ||
    /Connection terminated|connection timeout/i.test((err as Error).message ?? '')
  );
}

function asUnavailable(err: unknown): unknown {
  return unreachable(err) ? new PulseUnavailableError('The subscription store cannot be reached right now; nothing was changed. Try again in a few minutes.', { cause: err }) : err;
}

export class PostgresDriver implements SqlDriver {
  readonly kind = 'postgres' as const;
  readonly #pool: pg.Pool;

  constructor(connectionString: string) {
    this.#pool = new pg.Pool({ connectionString, max: 5, types: { getTypeParser: typeParser } as never });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    this.#pool.on('error', () => {});
  }

  async query(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    try {
      return (await this.#pool.query(sql, params as SqlValue[])).rows as Row[];
    } catch (err) {
      throw asUnavailable(err);
    }
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect().catch((err: unknown) => {
      throw asUnavailable(err);
    });
    try {
      await client.query('BEGIN');
      const result = await fn({ query: async (sql, params = []) => (await client.query(sql, params as SqlValue[])).rows as Row[] });
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw asUnavailable(err);
    } finally {
      client.release();
    }
  }

  async migrate(migrations: readonly { version: number; name: string; sql: string }[]): Promise<number> {
    return this.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
      await tx.query('CREATE TABLE IF NOT EXISTS pulse_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL)');
      const [row] = await tx.query('SELECT COALESCE(MAX(version), 0) AS v FROM pulse_migrations');
      let version = Number(row?.v ?? 0);
      for (const migration of migrations) {
        if (migration.version <= version) continue;
        await tx.query(migration.sql);
        await tx.query('INSERT INTO pulse_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [migration.version, migration.name, new Date().toISOString()]);
        version = migration.version;
      }
      return version;
    });
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }
}
