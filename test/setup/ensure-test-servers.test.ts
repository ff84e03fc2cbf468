/**
 * scripts/ensure-test-servers.sh, which `make test` runs first: run for real with a PATH and a
 * PostgreSQL folder of the test's making, so "installed" and "missing" are chosen here, and with
 * a fake `apt-get` that records how it was called (and installs stand-in binaries).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const SCRIPT = resolve(import.meta.dirname, '..', '..', 'scripts', 'ensure-test-servers.sh');
const BASH = '/bin/bash';

interface Sandbox {
  root: string;
  bin: string;
  pgLib: string;
  aptLog: string;
}

const sandboxes: string[] = [];
afterEach(() => {
  for (const dir of sandboxes.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A PATH holding only what the script may use besides the servers (getent), nothing installed. */
function sandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), 'ensure-servers-'));
  sandboxes.push(root);
  const bin = join(root, 'bin');
  const pgLib = join(root, 'postgresql');
  mkdirSync(bin);
  mkdirSync(pgLib);
  for (const tool of ['getent']) {
    const found = ['/usr/bin', '/bin'].map((d) => join(d, tool)).find((p) => existsSync(p));
    if (found) symlinkSync(found, join(bin, tool));
  }
  return { root, bin, pgLib, aptLog: join(root, 'apt.log') };
}

function executable(path: string, body = 'exit 0'): void {
  writeFileSync(path, `#!${BASH}\n${body}\n`);
  chmodSync(path, 0o755);
}

function installServers(box: Sandbox, which: { redis?: boolean; postgresql?: boolean; chromium?: boolean }): void {
  if (which.redis) executable(join(box.bin, 'redis-server'));
  if (which.chromium) executable(join(box.bin, 'chromium'));
  if (which.postgresql) {
    const pgBin = join(box.pgLib, '15', 'bin');
    mkdirSync(pgBin, { recursive: true });
    executable(join(pgBin, 'initdb'));
    executable(join(pgBin, 'postgres'));
  }
}

/** A fake apt-get: logs each call, and `install` creates the named packages' binaries. */
function fakeAptGet(box: Sandbox): void {
  executable(
    join(box.bin, 'apt-get'),
    [
      // Its own tools (mkdir, chmod) come from the system; the script's PATH stays the sandbox's.
      'PATH="$PATH:/usr/bin:/bin"',
      `echo "$DEBIAN_FRONTEND $*" >> ${JSON.stringify(box.aptLog)}`,
      'if [ "$1" = install ]; then',
      '  for arg in "$@"; do',
      '    case "$arg" in',
      `      redis-server|chromium) printf '#!${BASH}\\nexit 0\\n' > ${JSON.stringify(box.bin)}/$arg; chmod +x ${JSON.stringify(box.bin)}/$arg ;;`,
      `      postgresql) mkdir -p ${JSON.stringify(box.pgLib)}/16/bin; for b in initdb postgres; do printf '#!${BASH}\\nexit 0\\n' > ${JSON.stringify(box.pgLib)}/16/bin/$b; chmod +x ${JSON.stringify(box.pgLib)}/16/bin/$b; done ;;`,
      '    esac',
      '  done',
      'fi',
    ].join('\n'),
  );
}

function run(box: Sandbox, uid: number) {
  return spawnSync(BASH, [SCRIPT], {
    encoding: 'utf8',
    env: { PATH: box.bin, ENSURE_TEST_SERVERS_UID: String(uid), POSTGRESQL_LIB_DIR: box.pgLib },
  });
}

describe('scripts/ensure-test-servers.sh', () => {
  it('as a non-root user with servers missing, stops at once naming every package to install', () => {
    const box = sandbox();
    installServers(box, { postgresql: true });
    fakeAptGet(box);
    const result = run(box, 1000);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('not installed: redis-server chromium');
    expect(result.stderr).toContain('apt-get install redis-server chromium');
    expect(result.stderr).not.toMatch(/postgresql/);
    expect(existsSync(box.aptLog)).toBe(false);
  });

  it('finds PostgreSQL only where both initdb and postgres are under <lib>/<major>/bin', () => {
    const box = sandbox();
    installServers(box, { redis: true, chromium: true });
    mkdirSync(join(box.pgLib, '15', 'bin'), { recursive: true });
    executable(join(box.pgLib, '15', 'bin', 'initdb'));
    const result = run(box, 1000);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('apt-get install postgresql');
  });

  it('does nothing when every server is there', () => {
    const box = sandbox();
    installServers(box, { redis: true, postgresql: true, chromium: true });
    fakeAptGet(box);
    const result = run(box, 1000);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(existsSync(box.aptLog)).toBe(false);
  });

  it('as root, installs what is missing: one quiet apt-get update, then a non-interactive install', () => {
    const box = sandbox();
    installServers(box, { chromium: true });
    fakeAptGet(box);
    const result = run(box, 0);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('installing redis-server postgresql');
    expect(readFileSync(box.aptLog, 'utf8').trim().split('\n')).toEqual([
      'noninteractive update -qq',
      'noninteractive install -y -qq redis-server postgresql',
    ]);
    expect(existsSync(join(box.bin, 'redis-server'))).toBe(true);
  });

  it('as root, fails when apt-get ran but a server is still not found', () => {
    const box = sandbox();
    installServers(box, { redis: true, postgresql: true });
    executable(join(box.bin, 'apt-get'));
    const result = run(box, 0);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('chromium is still not found');
  });

  it('on this machine (the suite is running, so make test provisioned it) finds every server', () => {
    const result = spawnSync(BASH, [SCRIPT], { encoding: 'utf8', env: { ...process.env, ENSURE_TEST_SERVERS_UID: '1000' } });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});
