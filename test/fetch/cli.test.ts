/**
 * The commands as an operator runs them: a real `vulnintel` process against a local server.
 * Covers the CLI wiring (options, exit codes) and a SIGTERM to the long-running poller.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture, routes, startServer, tempRaw, type TestServer } from './helpers.ts';

const BIN = fileURLToPath(new URL('../../bin/vulnintel.mjs', import.meta.url));

interface Exit {
  code: number | null;
  stderr: string;
}

function vulnintel(args: string[], opts: { onStderr?: (text: string, kill: () => void) => void } = {}): Promise<Exit> {
  // Straight to 127.0.0.1: a proxy configured on the machine must not be used for the local server.
  const env = { ...process.env, NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost', VULNINTEL_QUIET: '0' };
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    opts.onStderr?.(stderr, () => child.kill('SIGTERM'));
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
}

describe('vulnintel fetch / poll processes', () => {
  let data: string;
  let cleanup: () => Promise<void>;
  let server: TestServer;
  let configFile: string;
  beforeEach(async () => {
    ({ raw: data, cleanup } = await tempRaw());
    const cve = { cve: JSON.parse((await fixture('nvd/CVE-2024-3400.json')).toString()) };
    server = await startServer(
      routes({
        '/kev.json': { body: await fixture('kev/known_exploited_vulnerabilities.head3.json') },
        '/epss.csv.gz': { status: 404, body: 'gone' },
        '/nvd': (u) => {
          const list = u.searchParams.has('lastModStartDate') ? [cve] : [];
          return { body: JSON.stringify({ resultsPerPage: list.length, startIndex: 0, totalResults: list.length, vulnerabilities: list }) };
        },
      }),
    );
    configFile = join(data, 'sources.json');
    await writeFile(
      configFile,
      JSON.stringify({
        _comment: 'test mirror',
        http: { retries: 0 },
        sources: {
          nvd: { url: `${server.base}/nvd`, rateWindowSeconds: 0.01 },
          kev: { url: `${server.base}/kev.json` },
          epss: { url: `${server.base}/epss.csv.gz` },
        },
      }),
    );
  });
  afterEach(async () => {
    await server.close();
    await cleanup();
  });

  it('fetch: exit 1 naming the failed source, the good one stored, statuses written', async () => {
    const exit = await vulnintel(['fetch', '--sources', 'kev,epss', '--data', data, '--config', configFile]);
    expect(exit.code).toBe(1);
    expect(exit.stderr).toMatch(/1 of 2 sources failed[^\n]*\n\s+epss: GET http:\/\/127\.0\.0\.1:\d+\/epss\.csv\.gz: HTTP 404 \(gone\)/);
    expect(existsSync(join(data, 'raw', 'kev', 'known_exploited_vulnerabilities.json'))).toBe(true);
    const status = JSON.parse(await readFile(join(data, 'raw', '_status', 'epss.json'), 'utf8'));
    expect(status).toMatchObject({ source: 'epss', ok: false });
  });

  it('poll: builds and publishes, then exits 0 on SIGTERM with its health saying stopped', async () => {
    await mkdir(join(data, 'raw', 'nvd'), { recursive: true });
    await writeFile(join(data, 'raw', 'nvd', '_state.json'), JSON.stringify({ watermark: new Date(Date.now() - 3_600_000).toISOString() }));
    let killed = false;
    const exit = await vulnintel(['poll', '--interval', '1h', '--data', data, '--config', configFile], {
      onStderr: (text, kill) => {
        if (!killed && /✓ poll:/.test(text)) {
          killed = true;
          kill();
        }
      },
    });
    expect(exit.stderr).toMatch(/✓ poll: 1 changed CVE records, published/);
    expect(exit.code).toBe(0);
    const health = JSON.parse(await readFile(join(data, 'poller-health.json'), 'utf8'));
    expect(health).toMatchObject({ status: 'stopped', polls_ok: 1, last_changes: 1, next_poll_at: null });
    expect((await readFile(join(data, 'CURRENT'), 'utf8')).trim()).toBe(health.last_build_id);
  }, 60_000);
});
