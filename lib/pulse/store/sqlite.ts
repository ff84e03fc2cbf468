/**
 * The SQLite driver (default store, `<data>/pulse/pulse.db`): Node's built-in `node:sqlite`, in
 * WAL mode so that `serve` and `notify` on one machine read and write the file together.
 * DatabaseSync is synchronous: every use goes through one queue, so a transaction's awaits
 * never interleave with another caller's statements on the same connection.
 */
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { PulseUnavailableError } from '../errors.ts';
import type { Queryable, Row, SqlDriver, SqlValue } from './driver.ts';

/**
 * `node:sqlite`, loaded on first use without its "experimental" warning (Node 24 prints one on
 * load; the module is stable enough for this store, and the warning would end up in every cron
 * mail). Only that one warning is held back, only while loading.
 */
function loadSqlite(): typeof import('node:sqlite') {
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (String(typeof warning === 'string' ? warning : warning.message).includes('SQLite is an experimental feature')) return;
    (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return createRequire(import.meta.url)('node:sqlite') as typeof import('node:sqlite');
  } finally {
    process.emitWarning = emit;
  }
}

/**
 * SQLite's result codes (the primary code, the low byte of node:sqlite's `errcode`) that say the
 * file cannot be written for now, not that a statement is wrong: the disk full (SQLITE_FULL),
 * an I/O error (SQLITE_IOERR), another process holding the lock past busy_timeout (SQLITE_BUSY),
 * a file or folder made read-only (SQLITE_READONLY). Nothing was changed: the transaction is
 * rolled back, and the store's file stays whole.
 */
const UNAVAILABLE_CODES: Record<number, string> = { 5: 'it is locked by another process', 8: 'its file is read-only', 10: 'its file cannot be written', 13: 'its disk is full' };

/**
 * A write the store cannot take for now (UNAVAILABLE_CODES) as the service's "unavailable": a 503
 * saying so to callers, as the PostgreSQL store answers when its server cannot be reached. It
 * was a 500 "Internal error" for a subscription created while the disk was full.
 */
export function asUnavailable(err: unknown): unknown {
  const errcode = (err as { errcode?: unknown }).errcode;
  const why = typeof errcode === 'number' ? UNAVAILABLE_CODES[errcode & 0xff] : undefined;
  if ((err as { code?: unknown }).code !== 'ERR_SQLITE_ERROR' || why === undefined) return err;
  return new PulseUnavailableError(`The subscription store cannot take changes right now (${why}); nothing was changed. Try again in a few minutes.`, { cause: err });
}

/** `$1` → `?1`: SQLite's numbered parameters, so one SQL text serves both databases. */
function toSqlite(sql: string): string {
  return sql.replace(/\$(\d+)/g, '?$1');
}

export class SqliteDriver implements SqlDriver {
  readonly kind = 'sqlite' as const;
  readonly #db: DatabaseSync;
  /** Prepared once per SQL text (the store uses a few dozen). */
  readonly #statements = new Map<string, StatementSync>();
  #queue: Promise<unknown> = Promise.resolve();

  constructor(path: string) {
    if (path !== ':memory:') {
      // The file holds every webhook's signing secret and every subscriber's address: readable
      // by this user only (it was created 0644 in a 0755 folder, so any local user could forge
      // signed deliveries). SQLite gives its -wal and -shm files the database file's mode.
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      closeSync(openSync(path, 'a', 0o600));
    }
    const { DatabaseSync: Database } = loadSqlite();
    this.#db = new Database(path);
    this.#db.exec('PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL;');
  }

  #run(sql: string, params: readonly SqlValue[]): Row[] {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(toSqlite(sql));
      // Dynamic SQL (updateSubscription's SET list) has few shapes; the bound keeps any caller honest.
      if (this.#statements.size < 200) this.#statements.set(sql, statement);
    }
    const values = params as SQLInputValue[];
    if (/^\s*(select|with)\b/i.test(sql) || /\breturning\b/i.test(sql)) return statement.all(...values) as Row[];
    statement.run(...values);
    return [];
  }

  #enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(fn, fn);
    this.#queue = result.catch(() => {});
    return result;
  }

  query(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    return this.#enqueue(async () => {
      try {
        return this.#run(sql, params);
      } catch (err) {
        throw asUnavailable(err);
      }
    });
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.#enqueue(async () => {
      try {
        this.#db.exec('BEGIN IMMEDIATE');
        try {
          const result = await fn({ query: async (sql, params = []) => this.#run(sql, params) });
          this.#db.exec('COMMIT');
          return result;
        } catch (err) {
          // SQLite may have rolled it back itself (a full disk, an I/O error): a second ROLLBACK
          // would fail with "no transaction is active" in place of the error that says why.
          if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
          throw err;
        }
      } catch (err) {
        throw asUnavailable(err);
      }
    });
  }

  migrate(migrations: readonly { version: number; name: string; sql: string }[]): Promise<number> {
    return this.#enqueue(async () => {
      this.#db.exec('BEGIN IMMEDIATE');
      try {
        this.#db.exec('CREATE TABLE IF NOT EXISTS pulse_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
        const row = this.#db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM pulse_migrations').get() as { v: number };
        let version = Number(row.v);
        for (const migration of migrations) {
          if (migration.version <= version) continue;
          this.#db.exec(migration.sql);
          this.#db.prepare('INSERT INTO pulse_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(migration.version, migration.name, new Date().toISOString());
          version = migration.version;
        }
        this.#db.exec('COMMIT');
        return version;
      } catch (err) {
        this.#db.exec('ROLLBACK');
        throw err;
      }
    });
  }

  async close(): Promise<void> {
    await this.#enqueue(async () => this.#db.close());
  }
}
