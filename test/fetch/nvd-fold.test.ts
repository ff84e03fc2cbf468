/**
 * `nvd/delta/` is folded into the base once a published snapshot was built from it: bounded
 * over many polls, nothing lost when a fold is cut short, and a delta no build has read yet is
 * never touched.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BuildOptions, BuildResult } from '../../cli/build/options.ts';
import { defaultBuildOptions } from '../../cli/fetch/build-step.ts';
import { FOLD_BUCKETS, foldNvdDeltas, listNvdDeltas } from '../../cli/fetch/nvd-fold.ts';
import { runPoller } from '../../cli/fetch/poller.ts';
import { nvdParser } from '../../cli/parse/nvd.ts';
import { MemoryStageSink } from '../../cli/stage/writer.ts';
import { fixture, startServer, tempRaw, testConfig, testHttp, type TestServer } from './helpers.ts';

const NOW = Date.parse('2026-10-01T12:00:00.000Z');
const HOUR = 3_600_000;

type Cve = Record<string, unknown> & { id: string; lastModified: string };

/** What a build would stage from the raw NVD folder: rows per CVE and the newest lastModified of each. */
async function staged(nvdDir: string): Promise<{ rows: number; newest: Map<string, string> }> {
  const sink = new MemoryStageSink();
  await nvdParser.stage(nvdDir, sink, { tick() {}, setTotal() {}, stop() {} });
  const newest = new Map<string, string>();
  for (const r of sink.rows.nvd_cve) if (!newest.has(r.cve_id) || r.last_modified > newest.get(r.cve_id)!) newest.set(r.cve_id, r.last_modified);
  return { rows: sink.rows.nvd_cve.length, newest };
}

function page(cves: Cve[]): string {
  return JSON.stringify({ resultsPerPage: cves.length, startIndex: 0, totalResults: cves.length, format: 'NVD_CVE', version: '2.0', timestamp: '', vulnerabilities: cves.map((cve) => ({ cve })) });
}

describe('folding NVD deltas into the base', () => {
  let data: string;
  let raw: string;
  let nvd: string;
  let cleanup: () => Promise<void>;
  let template: Cve;
  beforeEach(async () => {
    ({ raw: data, cleanup } = await tempRaw());
    raw = join(data, 'raw');
    nvd = join(raw, 'nvd');
    template = JSON.parse((await fixture('nvd/CVE-2024-3400.json')).toString());
    await mkdir(join(nvd, 'full'), { recursive: true });
  });
  afterEach(() => cleanup());

  const version = (id: string, lastModified: string): Cve => ({ ...template, id, lastModified });

  it('under poll, delta/ stays empty after every published build and the folded base holds one record per CVE', async () => {
    let server: TestServer | undefined;
    let poll = 0;
    // Every poll NVD reports the two long-lived CVEs modified again, plus one new CVE.
    server = await startServer(() => {
      const at = new Date(NOW + poll * HOUR).toISOString().slice(0, 23);
      return { body: page([version('CVE-2024-3400', at), version('CVE-2025-39800', at), version(`CVE-2026-${10000 + poll}`, at)]) };
    });
    await writeFile(join(nvd, 'full', 'page-0000000.json.gz'), gzipSync(page([version('CVE-2024-3400', '2024-04-01T00:00:00.000'), version('CVE-1999-0001', '2010-01-01T00:00:00.000')])));
    await writeFile(join(nvd, '_state.json'), JSON.stringify({ watermark: new Date(NOW - HOUR).toISOString(), full: null, window: null }));
    const seenByBuild: string[][] = [];
    const build = async (opts: BuildOptions): Promise<BuildResult> => {
      seenByBuild.push(await listNvdDeltas(nvd));
      await writeFile(join(data, 'CURRENT'), `b${seenByBuild.length}\n`);
      return { buildId: `b${seenByBuild.length}`, snapshotDir: '', published: true, counts: {}, seconds: 0 };
    };
    const config = await testConfig({ sources: { nvd: { url: `${server.base}/nvd` } } });
    try {
      for (poll = 1; poll <= 5; poll++) {
        await runPoller({
          rawDir: raw, dataDir: data, intervalMs: HOUR, once: true, config, build,
          buildOptions: defaultBuildOptions(raw, data), signal: new AbortController().signal,
          now: () => new Date(NOW + poll * HOUR), sleep: async () => {}, http: testHttp().http,
        });
        expect(await listNvdDeltas(nvd)).toEqual([]);
        const { rows, newest } = await staged(nvd);
        // 2 base rows + one folded row per distinct CVE: bounded, not growing by 3 per poll.
        expect(rows).toBe(2 + 2 + poll);
        expect(newest.get('CVE-2024-3400')).toBe(new Date(NOW + poll * HOUR).toISOString());
        expect(newest.get('CVE-1999-0001')).toBe('2010-01-01T00:00:00.000Z');
        for (let k = 1; k <= poll; k++) expect(newest.has(`CVE-2026-${10000 + k}`)).toBe(true);
      }
      // Each build read exactly the one delta page of its own poll.
      expect(seenByBuild.map((d) => d.length)).toEqual([1, 1, 1, 1, 1]);
      const full = (await readdir(join(nvd, 'full'))).filter((n) => n.startsWith('folded-'));
      expect(full.length).toBeLessThanOrEqual(FOLD_BUCKETS);
    } finally {
      await server.close();
    }
  });

  it('a build that did not publish folds nothing', async () => {
    const server = await startServer(() => ({ body: page([version('CVE-2024-3400', '2026-10-01T11:00:00.000')]) }));
    await writeFile(join(nvd, '_state.json'), JSON.stringify({ watermark: new Date(NOW - HOUR).toISOString(), full: null, window: null }));
    const config = await testConfig({ sources: { nvd: { url: `${server.base}/nvd` } } });
    await runPoller({
      rawDir: raw, dataDir: data, intervalMs: HOUR, once: true, config,
      build: async () => ({ buildId: 'x', snapshotDir: '', published: false, counts: {}, seconds: 0 }),
      buildOptions: defaultBuildOptions(raw, data), signal: new AbortController().signal,
      now: () => new Date(NOW), sleep: async () => {}, http: testHttp().http,
    });
    await server.close();
    expect(await listNvdDeltas(nvd)).toHaveLength(1);
    expect((await readdir(join(nvd, 'full'))).filter((n) => n.startsWith('folded-'))).toEqual([]);
  });

  it('orders versions by NVD lastModified read as UTC, whatever the host time zone', async () => {
    // NVD writes lastModified without a zone (UTC). Read as local time on a host in New York,
    // 02:30 on the day clocks spring forward does not exist there and became 03:30 EDT, later
    // than 03:10: the fold kept the older version, and the build (which reads only the base
    // once the deltas are gone) served it.
    const tz = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      await mkdir(join(nvd, 'delta'), { recursive: true });
      await writeFile(join(nvd, 'delta', '20260308T024500Z-0000000.json.gz'), gzipSync(page([version('CVE-2024-3400', '2026-03-08T02:30:00.000')])));
      await writeFile(join(nvd, 'delta', '20260308T034500Z-0000000.json.gz'), gzipSync(page([version('CVE-2024-3400', '2026-03-08T03:10:00.000')])));
      await foldNvdDeltas(nvd, await listNvdDeltas(nvd));
      expect((await staged(nvd)).newest.get('CVE-2024-3400')).toBe('2026-03-08T03:10:00.000Z');
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it('a crash between writing the base and deleting the deltas loses nothing; the next fold finishes the job', async () => {
    await mkdir(join(nvd, 'delta'), { recursive: true });
    await writeFile(join(nvd, 'delta', '20261001T100000Z-0000000.json.gz'), gzipSync(page([version('CVE-2024-3400', '2026-10-01T10:00:00.000'), version('CVE-2024-0033', '2026-10-01T10:00:00.000')])));
    await writeFile(join(nvd, 'delta', '20261001T110000Z-0000000.json.gz'), gzipSync(page([version('CVE-2024-3400', '2026-10-01T11:00:00.000')])));
    const before = await staged(nvd);
    const built = await listNvdDeltas(nvd);
    // A delta fetched after the build started: not folded, whatever happens.
    await writeFile(join(nvd, 'delta', '20261001T120000Z-0000000.json.gz'), gzipSync(page([version('CVE-2024-0064', '2026-10-01T12:00:00.000')])));

    await expect(
      foldNvdDeltas(nvd, built, () => {
        throw new Error('killed');
      }),
    ).rejects.toThrow('killed');
    const afterCrash = await staged(nvd);
    expect(afterCrash.newest.get('CVE-2024-3400')).toBe('2026-10-01T11:00:00.000Z');
    for (const [id, lm] of before.newest) expect(afterCrash.newest.get(id)).toBe(lm);
    expect((await listNvdDeltas(nvd)).length).toBe(3);

    const r = await foldNvdDeltas(nvd, built);
    expect(r).toMatchObject({ deltas: 2, records: 3 });
    expect(await listNvdDeltas(nvd)).toEqual(['20261001T120000Z-0000000.json.gz']);
    const after = await staged(nvd);
    expect([...after.newest.keys()].sort()).toEqual(['CVE-2024-0033', 'CVE-2024-0064', 'CVE-2024-3400']);
    expect(after.newest.get('CVE-2024-3400')).toBe('2026-10-01T11:00:00.000Z');
    // Folding the same deltas twice kept one record per CVE in the base.
    expect(after.rows).toBe(3);
    expect(existsSync(join(nvd, 'full', 'folded-08.json.gz'))).toBe(true); // 3400 mod 32
  });
});
