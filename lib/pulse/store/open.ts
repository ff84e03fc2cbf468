/**
 * Opens the /pulse store a command was given: `--pulse-db postgres://…` (or postgresql://),
 * a SQLite file (a path or a file: URL), or nothing — `<data>/pulse/pulse.db`.
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError } from '../../errors.ts';
import { PostgresDriver } from './postgres.ts';
import { SqliteDriver } from './sqlite.ts';
import { SqlPulseStore } from './sql-store.ts';
import type { PulseStore } from './store.ts';

export function defaultPulseDbPath(dataDir: string): string {
  return join(dataDir, 'pulse', 'pulse.db');
}

/** What `--pulse-db` names: a PostgreSQL URL, or a SQLite file (a path or a file: URL). */
type PulseDbTarget = { kind: 'postgres'; url: string } | { kind: 'sqlite'; path: string };

/**
 * Reads `--pulse-db`. A URL of any other scheme (mysql://, sqlite://, a mistyped postgress://)
 * is refused, naming the option: taken as a file path, it would quietly become a new, empty
 * SQLite store in a folder named after the scheme.
 */
function pulseDbTarget(spec: string | undefined, dataDir: string): PulseDbTarget {
  if (spec === undefined) return { kind: 'sqlite', path: resolve(defaultPulseDbPath(dataDir)) };
  if (/^postgres(ql)?:\/\//i.test(spec)) return { kind: 'postgres', url: spec };
  if (/^file:/i.test(spec)) {
    try {
      return { kind: 'sqlite', path: fileURLToPath(spec) };
    } catch (err) {
      throw new CliError(`--pulse-db: ${JSON.stringify(spec)} is not a usable file: URL (${(err as Error).message})`);
    }
  }
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(spec)?.[1];
  if (scheme) {
    throw new CliError(`--pulse-db: ${scheme}:// is not a store vulnintel can use; give postgres://user:password@host/db, or the path of a SQLite file`);
  }
  return { kind: 'sqlite', path: resolve(spec) };
}

/** Where the store is, for messages (a Postgres URL without its password). */
export function describePulseDb(spec: string | undefined, dataDir: string): string {
  const target = pulseDbTarget(spec, dataDir);
  if (target.kind === 'sqlite') return target.path;
  try {
    const url = new URL(target.url);
    url.password = url.password ? '***' : '';
    return url.toString();
  } catch {
    return 'postgres://…';
  }
}

export async function openPulseStore(spec: string | undefined, dataDir: string): Promise<PulseStore> {
  const target = pulseDbTarget(spec, dataDir);
  return SqlPulseStore.open(target.kind === 'postgres' ? new PostgresDriver(target.url) : new SqliteDriver(target.path));
}
