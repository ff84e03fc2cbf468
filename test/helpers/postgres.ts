/**
 * A real PostgreSQL for tests, started from Debian's `postgresql` package binaries
 * (/usr/lib/postgresql/<version>/bin, newest version found) in a temporary folder, listening on
 * loopback on a free port, with trust authentication and durability off (throwaway data).
 * PostgreSQL refuses to run as root: as root, it runs as the `postgres` user, owning the folder.
 * Missing binaries fail the test (never a skip): install the Debian package `postgresql`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const PG_ROOT = '/usr/lib/postgresql';
const SUPERUSER = 'vulnintel';

export interface PostgresServer {
  port: number;
  /** A connection URL for a database of that name (see createDatabase). */
  url(database?: string): string;
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

/** The bin folder of the newest PostgreSQL installed, or an error naming the package. */
export function postgresBinDir(): string {
  const versions = existsSync(PG_ROOT)
    ? readdirSync(PG_ROOT)
        .filter((v) => existsSync(join(PG_ROOT, v, 'bin', 'initdb')) && existsSync(join(PG_ROOT, v, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) {
    throw new Error(`PostgreSQL server binaries not found under ${PG_ROOT}/<version>/bin: install the Debian package \`postgresql\` (apt-get install postgresql); the store tests need a real server`);
  }
  return join(PG_ROOT, versions[0]!, 'bin');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * As root: the command run as `postgres` through setpriv, which execs it (no process in
 * between, so our signals reach the server itself); otherwise as is.
 */
function asServerUser(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', command, ...args]] : [command, args];
}

function postgresIds(): { uid: number; gid: number } {
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u');
  const gid = id('-g');
  if (!Number.isInteger(uid) || uid <= 0) throw new Error('running as root, but there is no `postgres` user to run PostgreSQL as (install the Debian package `postgresql`)');
  return { uid, gid };
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBinDir();
  const dir = await mkdtemp(join(tmpdir(), 'vulnintel-pg-'));
  const dataDir = join(dir, 'data');
  if (process.getuid?.() === 0) {
    const { uid, gid } = postgresIds();
    await chown(dir, uid, gid);
  }
  const [initCmd, initArgs] = asServerUser(join(bin, 'initdb'), ['-D', dataDir, '-U', SUPERUSER, '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  const init = spawnSync(initCmd, initArgs, { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed (${init.status}):\n${init.stdout}\n${init.stderr}`);

  const port = await freePort();
  const [cmd, args] = asServerUser(join(bin, 'postgres'), [
    '-D', dataDir, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1',
    '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=50',
  ]);
  const child: ChildProcess = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 30_000;
  while (!output.includes('ready to accept connections')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`postgres did not start on port ${port}:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = (database = 'postgres') => `postgres://${SUPERUSER}@127.0.0.1:${port}/${database}`;
  return {
    port,
    url,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name.replaceAll('"', '')}"`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGINT'); // fast shutdown
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
