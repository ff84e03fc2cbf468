/**
 * The PostgreSQL driver (`--pulse-db postgres://…`): several hosts — every replica and the
 * notifier — share one database. Timestamps come back as ISO strings and JSONB as text, like
 * the SQLite driver's. Migrations run under an advisory lock, so replicas starting together
 * apply each one once.
 */
import pg from 'pg';
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

export class PostgresDriver implements SqlDriver {
  readonly kind = 'postgres' as const;
  readonly #pool: pg.Pool;

  constructor(connectionString: string) {
    this.#pool = new pg.Pool({ connectionString, max: 5, types: { getTypeParser: typeParser } as never });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    this.#pool.on('error', () => {});
  }

  async query(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    return (await this.#pool.query(sql, params as SqlValue[])).rows as Row[];
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
      const result = await fn({ query: async (sql, params = []) => (await client.query(sql, params as SqlValue[])).rows as Row[] });
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
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
