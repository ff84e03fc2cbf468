import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BuildOptions, BuildResult } from '../../cli/build/options.ts';
import { defaultBuildOptions } from '../../cli/fetch/build-step.ts';
import { abortOnSignals, parseDuration } from '../../cli/fetch/cli-options.ts';
import { acquireFetchLock } from '../../cli/fetch/lock.ts';
import { healthPath, runPoller, type PollerHealth } from '../../cli/fetch/poller.ts';
import { fixture, startServer, tempRaw, testConfig, testHttp, type Reply, type TestServer } from './helpers.ts';

const NOW = Date.parse('2026-10-01T12:00:00.000Z');
const HOUR = 3_600_000;

describe('live NVD poller', () => {
  let data: string;
  let raw: string;
  let cleanup: () => Promise<void>;
  let server: TestServer;
  let reply: (u: URL) => Reply;
  let clock: number;
  let builds: BuildOptions[];

  beforeEach(async () => {
    ({ raw: data, cleanup } = await tempRaw());
    raw = join(data, 'raw');
    clock = NOW;
    builds = [];
    const cves = await Promise.all(['CVE-2024-3400', 'CVE-2025-39800'].map(async (id) => ({ cve: JSON.parse((await fixture(`nvd/${id}.json`)).toString()) })));
    reply = () => ({ body: JSON.stringify({ resultsPerPage: 2, startIndex: 0, totalResults: 2, format: 'NVD_CVE', version: '2.0', timestamp: '', vulnerabilities: cves }) });
    server = await startServer((_req, u) => reply(u));
    await mkdir(join(raw, 'nvd'), { recursive: true });
    await writeFile(join(raw, 'nvd', '_state.json'), JSON.stringify({ watermark: new Date(NOW - HOUR).toISOString(), full: null, window: null }));
  });
  afterEach(async () => {
    await server.close();
    await cleanup();
  });

  const build = async (opts: BuildOptions): Promise<BuildResult> => {
    builds.push(opts);
    await writeFile(join(data, 'CURRENT'), `b${builds.length}\n`);
    return { buildId: `b${builds.length}`, snapshotDir: '', published: true, counts: {}, seconds: 1 };
  };

  async function poll(opts: { once: boolean; signal?: AbortSignal; build?: typeof build; onSleep?: () => void }) {
    const config = await testConfig({ sources: { nvd: { url: `${server.base}/nvd` } } });
    return runPoller({
      rawDir: raw,
      dataDir: data,
      intervalMs: HOUR,
      once: opts.once,
      config,
      build: opts.build ?? build,
      buildOptions: defaultBuildOptions(raw, data),
      signal: opts.signal ?? new AbortController().signal,
      now: () => new Date(clock),
      sleep: async (ms, signal) => {
        signal?.throwIfAborted();
        opts.onSleep?.();
        clock += ms;
      },
      heartbeatMs: 20 * 60_000,
      http: testHttp().http,
    });
  }

  const health = async (): Promise<PollerHealth> => JSON.parse(await readFile(healthPath(data), 'utf8'));

  it('--once: fetches the changes since the watermark, rebuilds, publishes and records its health', async () => {
    await poll({ once: true });
    expect(builds).toHaveLength(1);
    const windowStart = server.requests[0]!.query.get('lastModStartDate')!;
    expect(Date.parse(windowStart)).toBe(NOW - HOUR - 15 * 60_000);
    expect(await health()).toMatchObject({
      status: 'stopped',
      last_poll_ok: true,
      last_changes: 2,
      last_build_id: 'b1',
      nvd_watermark: new Date(NOW).toISOString(),
      lag_seconds: 0,
      polls_ok: 1,
      polls_failed: 0,
      consecutive_failures: 0,
      next_poll_at: null,
      last_error: null,
      pid: process.pid,
    });
  });

  it('loops every interval, keeps its health current while idle, and stops cleanly on a signal mid-build', async () => {
    const controller = new AbortController();
    const idle: Array<Pick<PollerHealth, 'status' | 'next_poll_at' | 'lag_seconds'>> = [];
    const result = await poll({
      once: false,
      signal: controller.signal,
      onSleep: () => {
        const h = JSON.parse(readFileSync(healthPath(data), 'utf8')) as PollerHealth;
        idle.push({ status: h.status, next_poll_at: h.next_poll_at, lag_seconds: h.lag_seconds });
      },
      build: async (opts) => {
        if (builds.length === 1) controller.abort(); // SIGTERM while the second build runs: it finishes
        return build(opts);
      },
    });
    expect(builds).toHaveLength(2);
    expect(result).toMatchObject({ status: 'stopped', polls_ok: 2, last_build_id: 'b2', next_poll_at: null });
    expect(await health()).toMatchObject({ status: 'stopped', polls_ok: 2 });
    // Three heartbeats of 20 min while waiting for the next poll, lag growing between them.
    expect(idle.map((h) => h.status)).toEqual(['idle', 'idle', 'idle']);
    expect(idle[0]!.next_poll_at).toBe(new Date(NOW + HOUR).toISOString());
    expect(idle.map((h) => h.lag_seconds)).toEqual([0, 1200, 2400]);
  });

  it('a failed NVD poll is counted and reported, nothing is built, the lag shows the stale watermark', async () => {
    reply = () => ({ status: 500, body: 'Internal Server Error' });
    await poll({ once: true });
    expect(builds).toHaveLength(0);
    const h = await health();
    expect(h).toMatchObject({ last_poll_ok: false, polls_ok: 0, polls_failed: 1, consecutive_failures: 1, lag_seconds: 3600 });
    expect(h.last_error).toMatch(/^NVD: GET http:\/\/127\.0\.0\.1:\d+\/nvd\?.*HTTP 500/);
  });

  it('a poll skipped while the nightly fetch holds the raw folder is counted apart, not as a failure', async () => {
    const earlier = { last_poll_at: '2026-10-01T10:00:00.000Z', last_poll_ok: true, polls_ok: 3, polls_failed: 1, consecutive_failures: 0 };
    await writeFile(healthPath(data), JSON.stringify(earlier));
    const nightly = await acquireFetchLock(raw);
    try {
      await poll({ once: true });
    } finally {
      await nightly.release();
    }
    expect(builds).toHaveLength(0);
    expect(server.requests).toHaveLength(0);
    expect(await health()).toMatchObject({ ...earlier, polls_skipped: 1, last_skipped_at: new Date(NOW).toISOString(), status: 'stopped' });
    // The next poll runs as usual and keeps the count.
    await poll({ once: true });
    expect(await health()).toMatchObject({ last_poll_ok: true, polls_ok: 4, polls_skipped: 1, consecutive_failures: 0 });
  });

  it('does not rebuild when NVD reports no change and a snapshot is already served; counters survive a restart', async () => {
    await writeFile(join(data, 'CURRENT'), 'b0\n');
    await writeFile(healthPath(data), JSON.stringify({ polls_ok: 5, polls_failed: 2, consecutive_failures: 1, last_build_id: 'b0' }));
    reply = () => ({ body: JSON.stringify({ resultsPerPage: 0, startIndex: 0, totalResults: 0, vulnerabilities: [] }) });
    await poll({ once: true });
    expect(builds).toHaveLength(0);
    expect(await health()).toMatchObject({ last_poll_ok: true, last_changes: 0, polls_ok: 6, polls_failed: 2, consecutive_failures: 0, last_build_id: 'b0' });
  });

  it('rebuilds on a quiet poll when the changes of an earlier poll were never published (its build failed)', async () => {
    await writeFile(join(data, 'CURRENT'), 'b0\n');
    await poll({
      once: true,
      build: async () => {
        throw new Error('DuckDB out of memory');
      },
    });
    expect(await health()).toMatchObject({ last_poll_ok: false, last_changes: 2 });
    // NVD has nothing new since: the two records fetched above are still not served.
    reply = () => ({ body: JSON.stringify({ resultsPerPage: 0, startIndex: 0, totalResults: 0, vulnerabilities: [] }) });
    await poll({ once: true });
    expect(builds).toHaveLength(1);
    expect(await health()).toMatchObject({ last_poll_ok: true, last_changes: 0, last_build_id: 'b1' });
    // Published, the deltas are folded: the next quiet poll has nothing to build.
    await poll({ once: true });
    expect(builds).toHaveLength(1);
  });

  it('a build that throws counts as a failed poll, and the loop survives it', async () => {
    await poll({
      once: true,
      build: async () => {
        throw new Error('DuckDB out of memory');
      },
    });
    expect(await health()).toMatchObject({ last_poll_ok: false, polls_failed: 1, last_error: 'build: DuckDB out of memory' });
  });
});

describe('poller plumbing', () => {
  it('parses intervals', () => {
    expect(parseDuration('2h')).toBe(2 * HOUR);
    expect(parseDuration('1h30m')).toBe(90 * 60_000);
    expect(parseDuration('45s')).toBe(45_000);
    expect(() => parseDuration('2 hours')).toThrow(/invalid duration/);
    expect(() => parseDuration('0m')).toThrow(/invalid duration/);
    expect(parseDuration('366d')).toBe(366 * 24 * HOUR);
    // The next poll's time of so long an interval was no date: the poller failed after one poll.
    expect(() => parseDuration('99999999999999999999h')).toThrow(/longer than a year/);
    expect(() => parseDuration('367d')).toThrow(/longer than a year/);
  });

  it('SIGTERM aborts the run instead of killing the process; dispose removes the run\'s handlers', () => {
    const seen: string[] = [];
    const s = abortOnSignals((sig) => seen.push(sig));
    process.emit('SIGTERM', 'SIGTERM');
    expect(s.signal.aborted).toBe(true);
    expect(seen).toEqual(['SIGTERM']);
    s.dispose();
    const after = process.listenerCount('SIGTERM');
    // A later run's handlers go as they came: nothing piles up run after run (a poller).
    const later = abortOnSignals((sig) => seen.push(sig));
    expect(process.listenerCount('SIGTERM')).toBe(after + 1);
    later.dispose();
    expect(process.listenerCount('SIGTERM')).toBe(after);
    expect(later.signal.aborted).toBe(false);
  });

  it('a signal once the work is done ends the process with the command\'s status, not "killed by SIGTERM"', async () => {
    // As `update` after publishing, winding down: the handlers disposed, the process still open.
    const script = join(await mkdtemp(join(tmpdir(), 'vulnintel-wind-down-')), 'wind-down.mts');
    const module = new URL('../../cli/fetch/cli-options.ts', import.meta.url).href;
    await writeFile(script, `import { abortOnSignals } from ${JSON.stringify(module)};
abortOnSignals().dispose();
if (process.argv[2]) process.exitCode = Number(process.argv[2]);
setTimeout(() => {}, 20_000);
process.stdout.write('ready\\n');
`);
    for (const status of [undefined, 3]) {
      const child = spawn(process.execPath, ['--import', 'tsx', script, ...(status === undefined ? [] : [String(status)])], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve) => child.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && resolve()));
      child.kill('SIGTERM');
      const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (c, sig) => resolve([c, sig])));
      expect([code, signal]).toEqual([status ?? 0, null]);
    }
  }, 30_000);
});
