/**
 * `npm run bench:packages`: the package questions at full scale (issue 12), against targets:
 *   - one package query (`/packages/{ecosystem}/{name}?version=`), p50 ≤ 5 ms;
 *   - a 100-purl batch (`/packages/batch`), p50 ≤ 50 ms;
 *   - `vulnintel scan` of a 2,000-component CycloneDX SBOM, wall time ≤ 3 s.
 * Also: how long after start the replica answers, how long the package index takes to build,
 * its row count, and the server's RSS before and after it.
 *
 * The snapshot is `data/bench/data-<N>-<seed>` (the one bench:api and bench:build use), built
 * from `data/bench/raw-<N>-<seed>` when absent. Queries use packages and versions of the
 * snapshot itself (fixed and introduced versions of its ranges, so many are affected).
 * Environment: BENCH_CVES (340000), BENCH_SEED (1), BENCH_PORT (18490), BENCH_REQUESTS (2000).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { readCurrentBuildId, snapshotsDir, tableReader } from '../lib/snapshot-layout.ts';
import { cli, cves, data, raw, root, rssMb, seed, waitHealthy } from './full-scale.ts';

const port = Number(process.env.BENCH_PORT ?? 18490);
const requests = Number(process.env.BENCH_REQUESTS ?? 2000);
const base = `http://127.0.0.1:${port}`;

const PURL_TYPES: Record<string, string> = { npm: 'npm', PyPI: 'pypi', Maven: 'maven', Go: 'golang', 'crates.io': 'cargo', RubyGems: 'gem', NuGet: 'nuget', Packagist: 'composer' };

function run(args: string[], quiet = false): Promise<number> {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(process.execPath, [cli, ...args], { cwd: root, stdio: ['ignore', quiet ? 'ignore' : 'inherit', 'inherit'] });
    child.on('error', fail);
    child.on('exit', (code) => (code === 0 || (quiet && code === 1) ? done(performance.now() - started) : fail(new Error(`vulnintel ${args[0]} exit ${code}`))));
  });
}

async function ensureSnapshot(): Promise<string> {
  const current = await readCurrentBuildId(data);
  if (current) return current;
  if (!existsSync(join(raw, 'nvd'))) throw new Error(`no raw corpus at ${raw}: run \`vulnintel synth --cves ${cves} --seed ${seed} --raw ${raw}\``);
  await run(['build', '--raw', raw, '--data', data, '--keep', '1']);
  return (await readCurrentBuildId(data))!;
}

interface Pkg {
  ecosystem: string;
  name: string;
  version: string;
}

/** Packages of the snapshot with a version taken from their own ranges. */
async function samplePackages(buildId: string, n: number): Promise<Pkg[]> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const connection = await instance.connect();
  try {
    const reader = tableReader(join(snapshotsDir(data), buildId), 'affected_packages');
    const ecosystems = Object.keys(PURL_TYPES).map((e) => `'${e}'`).join(', ');
    const rows = await connection.runAndReadAll(
      `SELECT ecosystem, package_name,
              coalesce(b.fixed, b.introduced) AS version
       FROM (SELECT ecosystem, package_name, unnest(fixed_branches) AS b FROM ${reader} WHERE ecosystem IN (${ecosystems}))
       WHERE coalesce(b.fixed, b.introduced) IS NOT NULL AND coalesce(b.fixed, b.introduced) <> '0'
       ORDER BY hash(package_name || version) LIMIT ${n}`,
    );
    return rows.getRows().map(([ecosystem, name, version]) => ({ ecosystem: String(ecosystem), name: String(name), version: String(version) }));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

function purlOf(p: Pkg): string {
  const type = PURL_TYPES[p.ecosystem]!;
  const name = p.ecosystem === 'Maven' ? p.name.replace(':', '/') : p.name;
  return `pkg:${type}/${name.split('/').map(encodeURIComponent).join('/')}@${encodeURIComponent(p.version)}`;
}

async function timed(path: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${base}${path}`);
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status}`);
  return performance.now() - started;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const fmt = (ms: number) => `${ms.toFixed(2)} ms`;

async function main(): Promise<void> {
  const buildId = await ensureSnapshot();
  console.log(`snapshot ${buildId} (${cves} CVEs)`);
  const pkgs = await samplePackages(buildId, Math.max(requests, 2000));
  console.log(`${pkgs.length} sampled package versions`);

  const server: ChildProcess = spawn(process.execPath, [cli, 'serve', '--data', data, '--host', '127.0.0.1', '--port', String(port), '--no-rate-limit'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    const readyMs = await waitHealthy(base, 900_000, 50);
    const rssReady = Math.round(rssMb(server.pid!));
    const first = await timed(`/api/v1/public/packages/${encodeURIComponent(pkgs[0]!.ecosystem)}/${encodeURIComponent(pkgs[0]!.name)}?version=${encodeURIComponent(pkgs[0]!.version)}`);
    const rssIndexed = Math.round(rssMb(server.pid!));
    console.log(`replica ready (health ok) ${(readyMs / 1000).toFixed(1)} s after start; first package answer (index built in the background meanwhile) ${fmt(first)}`);
    console.log(`server RSS: ${rssReady} MB when ready, ${rssIndexed} MB with the package index`);

    const paths = pkgs.slice(0, requests).map((p) => `/api/v1/public/packages/${encodeURIComponent(p.ecosystem)}/${encodeURIComponent(p.name)}?version=${encodeURIComponent(p.version)}`);
    for (const p of paths.slice(0, 100)) await timed(p); // warm
    const single: number[] = [];
    for (const p of paths) single.push(await timed(p));
    console.log(`package query (${single.length}, one at a time): p50 ${fmt(percentile(single, 50))}, p95 ${fmt(percentile(single, 95))}, p99 ${fmt(percentile(single, 99))}  [target p50 ≤ 5 ms]`);

    const batches: string[] = [];
    for (let i = 0; i + 100 <= pkgs.length && batches.length < 200; i += 100) {
      batches.push(`/api/v1/public/packages/batch?purls=${encodeURIComponent(pkgs.slice(i, i + 100).map(purlOf).join(','))}`);
    }
    const batchTimes: number[] = [];
    for (let pass = 0; batchTimes.length < 200; pass++) for (const b of batches) if (batchTimes.length < 200) batchTimes.push(await timed(b));
    console.log(`100-purl batch (${batchTimes.length}): p50 ${fmt(percentile(batchTimes, 50))}, p95 ${fmt(percentile(batchTimes, 95))}  [target p50 ≤ 50 ms]`);
  } finally {
    server.kill('SIGTERM');
  }

  const sbomDir = await mkdtemp(join(tmpdir(), 'vulnintel-bench-sbom-'));
  const sbom = join(sbomDir, 'sbom-2000.cdx.json');
  const components = pkgs.slice(0, 2000).map((p, i) => ({ type: 'library', 'bom-ref': `c${i}`, name: p.name, version: p.version, purl: purlOf(p) }));
  await writeFile(sbom, JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, components }));
  const scans: number[] = [];
  for (let i = 0; i < 3; i++) scans.push(await run(['scan', sbom, '--data', data, '--format', 'json'], true));
  console.log(`vulnintel scan, ${components.length}-component SBOM: ${scans.map((s) => `${(s / 1000).toFixed(2)} s`).join(', ')} (median ${(percentile(scans, 50) / 1000).toFixed(2)} s)  [target ≤ 3 s]`);
}

await main();
