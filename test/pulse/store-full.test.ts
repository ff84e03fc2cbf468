/**
 * The SQLite store on a full disk: a write it cannot take is the service's "unavailable" (a 503
 * saying so, as for a PostgreSQL store that cannot be reached), never an internal error, and what
 * was stored before stays whole. The disk is made full for real inside SQLite: `max_page_count`
 * caps the file at its current size, so a write needing a new page fails with SQLITE_FULL
 * ("database or disk is full"), as on a full disk.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PulseUnavailableError } from '../../lib/pulse/errors.ts';
import { SqliteDriver } from '../../lib/pulse/store/sqlite.ts';

let dir: string;
let db: SqliteDriver;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vulnintel-pulse-full-'));
  db = new SqliteDriver(join(dir, 'pulse.db'));
  await db.query('CREATE TABLE kept (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  await db.query('INSERT INTO kept (body) VALUES ($1)', ['before']);
  // Cannot go below the file's size: the file may not grow any more.
  await db.query('PRAGMA max_page_count = 1');
});

afterEach(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

const big = 'x'.repeat(200_000);

describe('the SQLite store on a full disk', () => {
  it('a write is refused as unavailable, saying the disk is full', async () => {
    const err = await db.query('INSERT INTO kept (body) VALUES ($1)', [big]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PulseUnavailableError);
    expect((err as Error).message).toMatch(/disk is full.*nothing was changed/);
    expect(await db.query('SELECT body FROM kept')).toEqual([{ body: 'before' }]);
  });

  it('a transaction is rolled back and refused as unavailable; the store takes writes again once there is room', async () => {
    const err = await db
      .transaction(async (tx) => {
        await tx.query('INSERT INTO kept (body) VALUES ($1)', ['small']);
        await tx.query('INSERT INTO kept (body) VALUES ($1)', [big]);
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PulseUnavailableError);
    expect(await db.query('SELECT body FROM kept')).toEqual([{ body: 'before' }]);
    expect(await db.query('SELECT integrity_check FROM pragma_integrity_check')).toEqual([{ integrity_check: 'ok' }]);

    await db.query('PRAGMA max_page_count = 1000000');
    await db.transaction(async (tx) => tx.query('INSERT INTO kept (body) VALUES ($1)', [big]));
    expect(await db.query('SELECT count(*) AS n FROM kept')).toEqual([{ n: 2 }]);
  });

  it('a statement that is wrong stays its own error', async () => {
    await expect(db.query('INSERT INTO missing VALUES (1)')).rejects.toThrow(/no such table/);
    await expect(db.query('INSERT INTO missing VALUES (1)')).rejects.not.toBeInstanceOf(PulseUnavailableError);
  });
});
