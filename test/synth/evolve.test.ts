/**
 * `vulnintel synth --evolve-from`: a small corpus and its state two days later, both built:
 * the change step records what the evolution wrote (new CVEs, rejections, KEV additions, new
 * advisories with and without a CVE, advisories that came to name a CVE, rescorings, EPSS
 * crossings), and the source corpus is left byte for byte as it was.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../cli/build/build.ts';
import type { BuildResult } from '../../cli/build/options.ts';
import { resolveBuildOptions } from '../../cli/commands/build.ts';
import { runSynth } from '../../cli/commands/synth.ts';
import { listFiles } from '../../cli/raw/documents.ts';
import type { EvolveReport } from '../../cli/synth/evolve.ts';
import { EVOLVE_PER_DAY, evolveCorpus } from '../../cli/synth/evolve.ts';
import { EPSS_SCORE_DATE } from '../../cli/synth/writers/epss.ts';

process.env.VULNINTEL_QUIET = '1';

async function digests(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const file of await listFiles(dir)) out.set(file.slice(dir.length), createHash('sha256').update(await readFile(file)).digest('hex'));
  return out;
}

describe('synth --evolve-from', () => {
  let base: string;
  let evolved: string;
  let report: EvolveReport;
  let second: BuildResult;
  let kinds: Record<string, number>;
  let before: Map<string, string>;

  beforeAll(async () => {
    const root = await mkdtemp(join(tmpdir(), 'synth-evolve-'));
    base = join(root, 'base');
    evolved = join(root, 'evolved');
    await runSynth({ cves: 3000, raw: base, seed: '7' });
    before = await digests(base);
    report = await evolveCorpus({ from: base, raw: evolved, days: 2, seed: '7' });
    const data = join(root, 'data');
    await buildSnapshot(await resolveBuildOptions({ raw: base, data, keep: 2 }));
    second = await buildSnapshot(await resolveBuildOptions({ raw: evolved, data, keep: 2 }));
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    const rows = (await connection.runAndReadAll(`SELECT kind, count(*)::INTEGER AS n FROM read_parquet('${join(second.snapshotDir, 'changes.parquet')}') GROUP BY kind`)).getRowObjectsJson();
    kinds = Object.fromEntries(rows.map((r) => [r.kind as string, r.n as number]));
    connection.closeSync();
    instance.closeSync();
  }, 600_000);

  it('writes what a day of upstream brings, scaled to the corpus', () => {
    // Per-day rates at 340,000 CVEs, times 2 days, times 3,000 / 340,000; at least one each.
    const scaled = (perDay: number) => Math.max(1, Math.round((perDay * 2 * 3000) / 340_000));
    expect(report).toMatchObject({
      newCves: scaled(EVOLVE_PER_DAY.newCves),
      rescored: scaled(EVOLVE_PER_DAY.rescored),
      rejected: scaled(EVOLVE_PER_DAY.rejected),
      kevAdded: scaled(EVOLVE_PER_DAY.kevAdded),
      epssMoved: scaled(EVOLVE_PER_DAY.epssMoved),
    });
    expect(report.epssMoved).toBe(53);
    expect(report.newAdvisories).toBeGreaterThanOrEqual(1);
    expect(report.advisoriesLinked).toBeGreaterThanOrEqual(1);
  });

  it('the change step records each evolution', () => {
    expect(kinds.new_cve).toBe(report.newCves);
    expect(kinds.rejected).toBe(report.rejected);
    expect(kinds.kev_added).toBe(report.kevAdded);
    expect(kinds.new_advisory).toBe(report.newAdvisories);
    expect(kinds.advisory_linked).toBe(report.advisoriesLinked);
    expect(kinds.cvss_changed).toBeGreaterThanOrEqual(1);
    expect(kinds.cvss_changed).toBeLessThanOrEqual(report.rescored);
    expect(kinds.epss_crossed).toBeGreaterThanOrEqual(1);
    expect(second.counts.changes_this_build).toBe(Object.values(kinds).reduce((a, b) => a + b, 0));
  });

  it('leaves the source corpus as it was', async () => {
    expect(await digests(base)).toEqual(before);
  });

  it('refuses to write into a folder that is not empty, or over its source', async () => {
    await expect(evolveCorpus({ from: base, raw: evolved, days: 1, seed: '7' })).rejects.toThrow(/not empty/);
    await expect(evolveCorpus({ from: base, raw: base, days: 1, seed: '7' })).rejects.toThrow(/differ/);
  });

  it('dates what it writes after everything the corpus holds (a small corpus\'s KEV catalog is weeks older than its EPSS scores: the moved scores were dated before them, and the build kept the old ones)', async () => {
    // Seed 1 at 3,000 CVEs: the KEV catalog's newest addition is 2026-09-27, the EPSS scores are of 2026-09-30.
    const root = await mkdtemp(join(tmpdir(), 'synth-evolve-dates-'));
    const small = join(root, 'base');
    const later = join(root, 'later');
    await runSynth({ cves: 3000, raw: small, seed: '1' });
    const released = JSON.parse(await readFile(join(small, 'kev', 'known_exploited_vulnerabilities.json'), 'utf8')).dateReleased as string;
    expect(released < EPSS_SCORE_DATE).toBe(true);
    await evolveCorpus({ from: small, raw: later, days: 1, seed: '1' });
    const files = (await readdir(join(later, 'epss'))).filter((f) => f !== 'epss_scores-current.csv.gz');
    expect(files).toHaveLength(1);
    const header = gunzipSync(await readFile(join(later, 'epss', files[0]!))).toString('utf8').split('\n')[0]!;
    const scoreDate = /score_date:(\S+)/.exec(header)![1]!;
    expect(scoreDate > EPSS_SCORE_DATE).toBe(true);
    const evolvedKev = JSON.parse(await readFile(join(later, 'kev', 'known_exploited_vulnerabilities.json'), 'utf8')).dateReleased as string;
    expect(Date.parse(evolvedKev)).toBeGreaterThan(Date.parse(EPSS_SCORE_DATE));
  });

  it('names --evolve-from when it is not a synthetic corpus (a bare ENOENT of a path inside it before)', async () => {
    const notCorpus = await mkdtemp(join(tmpdir(), 'vulnintel-not-corpus-'));
    const out = await mkdtemp(join(tmpdir(), 'vulnintel-evolved-'));
    for (const from of [notCorpus, join(notCorpus, 'missing')]) {
      await expect(evolveCorpus({ from, raw: out, days: 1, seed: '7' })).rejects.toThrow(`--evolve-from: not a corpus written by \`vulnintel synth\` (no ${join(from, 'kev', 'known_exploited_vulnerabilities.json')})`);
    }
  });
});
