/**
 * A fetch on a full disk (ENOSPC): the good raw file in place stays byte for byte, the source's
 * status says what failed naming the file, the other sources are still fetched, and nothing ends
 * the process. The disk is made full by an injected failure of the writes (a tmpfs needs root):
 * Node's write errors carry a code and a call but no path, as these do.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fixture, routes, startServer, tempRaw, testConfig, testHttp, type TestServer } from './helpers.ts';

/** Files (their names' ends, or patterns) whose writes fail as on a full disk. */
const full = vi.hoisted(() => ({ suffixes: [] as (string | RegExp)[] }));

function enospc(): NodeJS.ErrnoException {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), { errno: -28, code: 'ENOSPC', syscall: 'write' });
}

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const open = async (...args: Parameters<typeof real.open>) => {
    const handle = await real.open(...args);
    const path = String(args[0]);
    if (!full.suffixes.some((s) => (typeof s === 'string' ? path.endsWith(s) : s.test(path)))) return handle;
    return new Proxy(handle, {
      get(target, key) {
        if (key === 'write' || key === 'writeFile') return async () => Promise.reject(enospc());
        const value = Reflect.get(target, key) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  };
  return { ...real, open, default: { ...real, open } };
});

const { fetchSources } = await import('../../cli/fetch/run.ts');
const { readSourceStatuses } = await import('../../cli/fetch/status.ts');
const { acquireFetchLock } = await import('../../cli/fetch/lock.ts');
const { healthPath, runPoller } = await import('../../cli/fetch/poller.ts');
const { defaultBuildOptions } = await import('../../cli/fetch/build-step.ts');

describe('fetch on a full disk', () => {
  let raw: string;
  let cleanup: () => Promise<void>;
  let server: TestServer;
  const kevFile = () => join(raw, 'kev', 'known_exploited_vulnerabilities.json');
  beforeEach(async () => {
    ({ raw, cleanup } = await tempRaw());
    const kev = JSON.parse((await fixture('kev/known_exploited_vulnerabilities.head3.json')).toString()) as Record<string, unknown>;
    // A newer catalog, large enough to come in many chunks; half of it, then a pause (the body
    // still coming when the first write fails), then the rest.
    const body = Buffer.from(JSON.stringify({ ...kev, catalogVersion: '2099.01.01', padding: 'x'.repeat(2_000_000) }));
    server = await startServer(
      routes({
        '/kev.json': { headers: { etag: '"v2"' }, body },
        '/slow-kev.json': { headers: { etag: '"v2"' }, body, cutAfter: 500_000, cutDelayMs: 300 },
        '/cves.json': { body: '{"ID":"CVE-2024-3400","Info":{"Severity":"critical"}}\n' },
      }),
    );
    await mkdir(join(raw, 'kev'), { recursive: true });
    await writeFile(kevFile(), await fixture('kev/known_exploited_vulnerabilities.head3.json'));
  });
  afterEach(async () => {
    full.suffixes = [];
    await server.close();
    await cleanup();
  });

  async function run(kevPath: string) {
    const config = await testConfig({ sources: { kev: { url: `${server.base}${kevPath}` }, nuclei: { url: `${server.base}/cves.json` } } });
    return fetchSources({ rawDir: raw, config, sources: ['kev', 'nuclei'], http: testHttp({ retries: 0 }).http });
  }

  it.each(['/kev.json', '/slow-kev.json'])('a download that cannot be written (%s): the good file kept, the status naming the file, the next source fetched', async (path) => {
    const before = await readFile(kevFile());
    full.suffixes = ['.known_exploited_vulnerabilities.json.partial'];
    // The failed write was a rejection nothing handled while the body was still coming: Node
    // ended the process, no status written and no other source fetched.
    const [kev, nuclei] = await run(path);
    expect(kev).toMatchObject({ source: 'kev', ok: false });
    expect(kev!.error).toMatch(/ENOSPC: no space left on device, write '[^']*\/kev\/\.known_exploited_vulnerabilities\.json\.partial'/);
    expect(nuclei).toMatchObject({ source: 'nuclei', ok: true });
    expect(await readFile(kevFile())).toEqual(before);
    const statuses = await readSourceStatuses(raw);
    expect(statuses.kev).toMatchObject({ ok: false, error: kev!.error });

    // Space again: the next run replaces the file.
    full.suffixes = [];
    const [again] = await run(path === '/kev.json' ? path : '/kev.json');
    expect(again).toMatchObject({ ok: true });
    expect(JSON.parse(await readFile(kevFile(), 'utf8'))).toMatchObject({ catalogVersion: '2099.01.01' });
  });

  it('a status that cannot be written: the error names the file', async () => {
    full.suffixes = ['.tmp'];
    await expect(run('/kev.json')).rejects.toMatchObject({ code: 'ENOSPC', path: expect.stringMatching(/\/_status\/\.kev\.json\.[^/]+\.tmp$/) });
    expect(existsSync(kevFile())).toBe(true);
  });

  it('a lock that cannot be written: the error names the lock file, which is not left behind', async () => {
    full.suffixes = ['_fetch.lock'];
    const lock = join(raw, '_fetch.lock');
    await expect(acquireFetchLock(raw)).rejects.toMatchObject({ code: 'ENOSPC', path: lock, message: expect.stringContaining(`'${lock}'`) });
    expect(existsSync(lock)).toBe(false);
  });

  it('the poller survives its health file becoming unwritable: it goes on polling, and releases the fetch lock', async () => {
    const cve = { cve: JSON.parse((await fixture('nvd/CVE-2024-3400.json')).toString()) };
    const nvd = await startServer(() => ({ body: JSON.stringify({ resultsPerPage: 1, startIndex: 0, totalResults: 1, vulnerabilities: [cve] }) }));
    await mkdir(join(raw, 'nvd'), { recursive: true });
    await writeFile(join(raw, 'nvd', '_state.json'), JSON.stringify({ watermark: new Date(Date.now() - 3_600_000).toISOString() }));
    const controller = new AbortController();
    let builds = 0;
    let polls = 0;
    let clock = Date.now();
    try {
      const health = await runPoller({
        rawDir: raw,
        dataDir: raw,
        intervalMs: 1000,
        once: false,
        config: await testConfig({ sources: { nvd: { url: `${nvd.base}/nvd` } } }),
        buildOptions: defaultBuildOptions(raw, raw),
        // The disk fills during the first build: every later health write fails.
        build: async () => {
          builds++;
          await writeFile(join(raw, 'CURRENT'), `b${builds}\n`);
          full.suffixes = [/\.poller-health\.json\.[^/]*\.tmp$/];
          return { buildId: `b${builds}`, snapshotDir: '', published: true, counts: {}, seconds: 1 };
        },
        signal: controller.signal,
        now: () => new Date(clock),
        sleep: async (ms, signal) => {
          signal?.throwIfAborted();
          clock += ms;
          if (++polls === 3) controller.abort();
        },
        heartbeatMs: 60_000,
        http: testHttp().http,
      });
      // It threw at the first health write after the disk filled: the poller ended there.
      expect(builds).toBeGreaterThanOrEqual(2);
      expect(health).toMatchObject({ status: 'stopped', polls_ok: builds });
      // Taken at each poll and released: nothing holds it now.
      await (await acquireFetchLock(raw)).release();
      // What the file says is the last state it could write (the first poll under way).
      expect(JSON.parse(await readFile(healthPath(raw), 'utf8'))).toMatchObject({ status: 'building' });
    } finally {
      await nvd.close();
    }
  });
});
