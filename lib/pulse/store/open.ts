/**
 * Opens the /pulse store a command was given: `--pulse-db postgres://…` (or postgresql://),
 * a path to a SQLite file, or nothing — `<data>/pulse/pulse.db`.
 */
import { join, resolve } from 'node:path';
import { PostgresDriver } from './postgres.ts';
import { SqliteDriver } from './sqlite.ts';
import { SqlPulseStore } from './sql-store.ts';
import type { PulseStore } from './store.ts';

export function defaultPulseDbPath(dataDir: string): string {
  return join(dataDir, 'pulse', 'pulse.db');
}

/** Where the store is, for messages (a Postgres URL without its password). */
export function describePulseDb(spec: string | undefined, dataDir: string): string {
  if (spec && /^postgres(ql)?:\/\//i.test(spec)) {
    try {
      const url = new URL(spec);
      url.password = url.password ? '***' : '';
      return url.toString();
    } catch {
      return 'postgres://…';
    }
  }
  return resolve(spec ?? defaultPulseDbPath(dataDir));
}

export async function openPulseStore(spec: string | undefined, dataDir: string): Promise<PulseStore> {
  if (spec && /^postgres(ql)?:\/\//i.test(spec)) return SqlPulseStore.open(new PostgresDriver(spec));
  return SqlPulseStore.open(new SqliteDriver(resolve(spec ?? defaultPulseDbPath(dataDir))));
}
