import { spawn } from 'node:child_process';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { zipSync } from 'fflate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BuildOptions, BuildResult } from '../../cli/build/options.ts';
import { updateExitError } from '../../cli/commands/update.ts';
import { loadBuild } from '../../cli/fetch/build-step.ts';
import { LockBusyError } from '../../cli/fetch/lock.ts';
import { readSourceStatuses, type SourceStatus } from '../../cli/fetch/status.ts';
import { updateOnce } from '../../cli/fetch/update.ts';
import { fixture, routes, startServer, tempRaw, testConfig, testHttp, type TestServer } from './helpers.ts';

describe('vulnintel update', () => {
  let raw: string;
  let data: string;
  let cleanup: () => Promise<void>;
  let server: TestServer;
  beforeEach(async () => {
    ({ raw: data, cleanup } = await tempRaw());
    raw = join(data, 'raw');
    server = await startServer(
      routes({
        '/kev.json': { body: await fixture('kev/known_exploited_vulnerabilities.head3.json') },
        '/epss.csv.gz': { status: 500, body: 'Internal Server Error' },
      }),
    );
  });
  afterEach(async () => {
    await server.close();
    await cleanup();
  });

  async function config() {
    return testConfig({ sources: { kev: { url: `${server.base}/kev.json` }, epss: { url: `${server.base}/epss.csv.gz` } } });
  }

  it('goes on to the build when a source fails; the build sees that source as stale', async () => {
    const calls: BuildOptions[] = [];
    let seen: Record<string, SourceStatus> = {};
    const build = async (opts: BuildOptions): Promise<BuildResult> => {
      calls.push(opts);
      seen = await readSourceStatuses(opts.rawDir); // what the manifest will carry
      return { buildId: 'b1', snapshotDir: join(data, 'snapshots', 'b1'), published: true, counts: { cves: 0 }, seconds: 0.1 };
    };
    const result = await updateOnce({ rawDir: raw, dataDir: data, config: await config(), sources: ['kev', 'epss'], keep: 3, build, http: testHttp().http });
    expect(calls).toEqual([{ rawDir: raw, dataDir: data, keep: 3, relatedProductThreshold: 2000, missionWellbeing: 'medium', allowShrink: false }]);
    expect(seen.kev).toMatchObject({ ok: true, records: 3 });
    expect(seen.epss).toMatchObject({ ok: false, last_success: null });
    expect(seen.epss!.error).toMatch(/HTTP 500 \(Internal Server Error\) after 4 attempts/);
    expect(result.fetched.map((r) => [r.source, r.ok])).toEqual([['kev', true], ['epss', false]]);
    expect(updateExitError(result)).toBeNull();
  });

  it('exits non-zero when no snapshot was published', async () => {
    const build = async (): Promise<BuildResult> => ({ buildId: 'b2', snapshotDir: '', published: false, counts: {}, seconds: 0 });
    const result = await updateOnce({ rawDir: raw, dataDir: data, config: await config(), sources: ['kev'], keep: 3, build, http: testHttp().http });
    expect(updateExitError(result)?.exitCode).toBe(2);
  });

  it('refuses to run while another live process holds the raw folder', async () => {
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10000)'], { stdio: 'ignore' });
    try {
      await mkdir(raw, { recursive: true });
      await writeFile(join(raw, '_fetch.lock'), `${other.pid}\n`);
      const build = async (): Promise<BuildResult> => {
        throw new Error('must not build');
      };
      await expect(updateOnce({ rawDir: raw, dataDir: data, config: await config(), sources: ['kev'], keep: 3, build, http: testHttp().http })).rejects.toThrow(
        LockBusyError,
      );
    } finally {
      other.kill();
    }
    // Its owner gone, the lock is stale and taken over.
    const build = async (): Promise<BuildResult> => ({ buildId: 'b3', snapshotDir: '', published: true, counts: {}, seconds: 0 });
    await new Promise((r) => other.once('exit', r));
    const result = await updateOnce({ rawDir: raw, dataDir: data, config: await config(), sources: ['kev'], keep: 3, build, http: testHttp().http });
    expect(result.build?.published).toBe(true);
  });

  it('runs the real buildSnapshot: the published manifest carries every fetch status', async () => {
    const nvd = await Promise.all(['CVE-2023-4966', 'CVE-2024-3400'].map(async (id) => ({ cve: JSON.parse((await fixture(`nvd/${id}.json`)).toString()) })));
    const cve5 = Buffer.from(zipSync({ 'cves/2024/1xxx/CVE-2024-1086.json': await fixture('cvelist/CVE-2024-1086.json') }));
    await server.close();
    server = await startServer(
      routes({
        '/kev.json': { body: await fixture('kev/known_exploited_vulnerabilities.head3.json') },
        '/epss.csv.gz': { body: gzipSync(await fixture('epss/epss_scores-current.head.csv')) },
        // The full pull finds both records; the incremental window right after it finds none.
        '/nvd': (u) => {
          const list = u.searchParams.has('lastModStartDate') ? [] : nvd;
          return { body: JSON.stringify({ resultsPerPage: list.length, startIndex: 0, totalResults: list.length, format: 'NVD_CVE', version: '2.0', timestamp: '2026-10-01T00:00:00.000', vulnerabilities: list }) };
        },
        '/releases': () => ({
          body: JSON.stringify([{ assets: [{ name: '2026-10-01_all_CVEs_at_midnight.zip.zip', browser_download_url: `${server.base}/base.zip.zip` }] }]),
        }),
        '/base.zip.zip': { body: Buffer.from(zipSync({ '2026-10-01_all_CVEs_at_midnight.zip': cve5 })) },
        '/cves.json': { status: 503, body: 'down for maintenance' },
      }),
    );
    const cfg = await testConfig({
      sources: {
        kev: { url: `${server.base}/kev.json` },
        epss: { url: `${server.base}/epss.csv.gz` },
        nvd: { url: `${server.base}/nvd` },
        cvelist: { releasesUrl: `${server.base}/releases` },
        nuclei: { url: `${server.base}/cves.json` },
      },
    });
    const buildSnapshot = await loadBuild();
    const result = await updateOnce({
      rawDir: raw,
      dataDir: data,
      config: cfg,
      sources: ['nvd', 'cvelist', 'kev', 'epss', 'nuclei'],
      keep: 3,
      build: (o) => buildSnapshot({ ...o, threads: 1, memoryLimit: '512MB' }),
      http: testHttp().http,
    });
    expect(updateExitError(result)).toBeNull();
    expect(result.build!.published).toBe(true);
    expect((await readFile(join(data, 'CURRENT'), 'utf8')).trim()).toBe(result.build!.buildId);
    const manifest = JSON.parse(await readFile(join(result.build!.snapshotDir, 'manifest.json'), 'utf8'));
    expect(manifest.sources.kev.fetch).toMatchObject({ ok: true, records: 3 });
    expect(manifest.sources.nvd.fetch).toMatchObject({ ok: true, records: 2 });
    expect(manifest.sources.nuclei.fetch).toMatchObject({ ok: false });
    expect(manifest.sources.nuclei.fetch.error).toMatch(/HTTP 503/);
    expect(result.build!.counts.cves).toBeGreaterThanOrEqual(3);
  }, 120_000);
});
