/**
 * `npm run bench:api`: the read API at full scale (DESIGN §8), against its targets.
 *
 * 1. The snapshot: `data/bench/data-<N>-<seed>` when published already (bench:build makes the
 *    same one), else built from `data/bench/raw-<N>-<seed>`, synthesised first when absent
 *    (`vulnintel synth`, then `vulnintel build`, each in its own process).
 * 2. The server runs as its own process (`vulnintel serve --no-rate-limit`), so its RSS is its
 *    own and autocannon (this process) does not share its event loop.
 * 3. Per endpoint: latency with one connection (requests one after the other, timed with
 *    hrtime: service time, not queueing), then throughput with 16 connections (autocannon). Ids are distinct (a sample of the
 *    snapshot's ids, each asked once per pass); one-word searches rotate over words of the
 *    corpus's own vocabulary with 1,000-60,000 matches.
 * 4. The 50,000-row export: wall time to read it all, and the server's RSS growth meanwhile
 *    (/proc/<pid>/status sampled every 20 ms).
 * 5. The framework ceiling: the same Hono + @hono/node-server returning a constant JSON body of
 *    the average record size, measured like the id lookup; the ratio is the API's share of it.
 *
 * Environment: BENCH_CVES (default 340000), BENCH_SEED (1), BENCH_SECONDS per throughput run (8),
 * BENCH_LATENCY_REQUESTS per latency run (2000), BENCH_PORT (18480).
 */
import autocannon, { type Result } from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { snapshotsDir, tableReader } from '../lib/snapshot-layout.ts';
import { cli, data, ensureSnapshot, root, rssMb, waitHealthy } from './full-scale.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const latencyRequests = Number(process.env.BENCH_LATENCY_REQUESTS ?? 2000);
const port = Number(process.env.BENCH_PORT ?? 18480);

/** Ids, search words and the average record size, read from the snapshot's Parquet files. */
async function sampleSnapshot(buildId: string) {
  const dir = join(snapshotsDir(data), buildId);
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const connection = await instance.connect();
  try {
    const idRows = await connection.runAndReadAll(`SELECT cve_id FROM ${tableReader(dir, 'cves')} USING SAMPLE 20000 ROWS`);
    const ids = idRows.getRows().map((r) => String(r[0]));
    const wordRows = await connection.runAndReadAll(
      `SELECT term FROM ${tableReader(dir, 'search_term_stats')} WHERE active_count BETWEEN 1000 AND 60000 AND length(term) >= 5 AND NOT regexp_matches(term, '^[0-9]+$') ORDER BY hash(term) LIMIT 20`,
    );
    const words = wordRows.getRows().map((r) => String(r[0]));
    const sizeRows = await connection.runAndReadAll(`SELECT CAST(avg(strlen(record_json)) AS INTEGER), count(*) FROM ${tableReader(dir, 'cves')}`);
    const [avgBytes, count] = sizeRows.getRows()[0]!.map(Number) as [number, number];
    return { ids, words, avgBytes, count };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

async function waitListening(target: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await (await fetch(target)).arrayBuffer();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`${target} not listening after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function startApiServer(): ChildProcess {
  return spawn(process.execPath, [cli, 'serve', '--data', data, '--host', '127.0.0.1', '--port', String(port), '--no-rate-limit'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, LOG_LEVEL: 'warn' },
  });
}

/** The framework ceiling: Hono on @hono/node-server answering a constant JSON body. */
function startConstantServer(bytes: number, constPort: number): ChildProcess {
  const code = `
    const { Hono } = await import('hono');
    const { serve } = await import('@hono/node-server');
    const body = Buffer.from(JSON.stringify({ cve_id: 'CVE-2024-0001', pad: 'x'.repeat(${Math.max(0, bytes - 36)}) }));
    const app = new Hono();
    app.get('/api/v1/public/cves/:id', (c) => c.body(body, 200, { 'Content-Type': 'application/json; charset=utf-8' }));
    serve({ fetch: app.fetch, hostname: '127.0.0.1', port: ${constPort} });`;
  return spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** autocannon with a path per request (rotating through `paths`). */
async function load(url: string, paths: string[], opts: { connections: number; duration?: number; amount?: number }): Promise<Result> {
  let i = 0;
  const result = await autocannon({
    url,
    connections: opts.connections,
    ...(opts.amount ? { amount: opts.amount } : { duration: opts.duration ?? seconds }),
    requests: [
      {
        setupRequest: (req) => {
          req.path = paths[i++ % paths.length]!;
          return req;
        },
      },
    ],
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${paths[0]}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result;
}

interface Row {
  name: string;
  p50: number;
  p99: number;
  rps: number;
  target: string;
  ok: boolean;
}

/**
 * Latency as service time: `n` requests one after the other over one keep-alive connection,
 * timed with hrtime (autocannon's histogram counts whole milliseconds). Sorted, in ms.
 */
async function sequentialLatencies(url: string, paths: string[], n: number): Promise<number[]> {
  const { hostname, port: p } = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const path = paths[i % paths.length]!;
      const started = process.hrtime.bigint();
      const status = await new Promise<number>((done, fail) => {
        const req = request({ host: hostname, port: Number(p), path, agent }, (res) => {
          res.resume();
          res.on('end', () => done(res.statusCode ?? 0));
        });
        req.on('error', fail);
        req.end();
      });
      if (status !== 200) throw new Error(`${path}: status ${status}`);
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  } finally {
    agent.destroy();
  }
  return times.sort((a, b) => a - b);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function measure(url: string, name: string, paths: string[], p50Target: number, extra?: (r: { p50: number; p99: number; rps: number }) => boolean, targetText?: string): Promise<Row> {
  await sequentialLatencies(url, paths, Math.min(200, latencyRequests)); // warm-up
  const latency = await sequentialLatencies(url, paths, latencyRequests);
  const throughput = await load(url, paths, { connections: 16 });
  const r = { p50: percentile(latency, 50), p99: percentile(latency, 99), rps: throughput.requests.average };
  return { name, ...r, target: targetText ?? `p50 ≤ ${p50Target} ms`, ok: r.p50 <= p50Target && (extra ? extra(r) : true) };
}

async function exportRun(url: string, pid: number): Promise<{ seconds: number; rows: number; mb: number; growthMb: number }> {
  const baseline = rssMb(pid);
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 20);
  const started = performance.now();
  const res = await fetch(`${url}/api/v1/public/cves/export.ndjson`);
  let rows = 0;
  let bytes = 0;
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.length;
    for (const b of value) if (b === 10) rows++;
  }
  const elapsed = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, rssMb(pid));
  return { seconds: elapsed, rows, mb: bytes / 1e6, growthMb: peak - baseline };
}

const buildId = await ensureSnapshot();
const sample = await sampleSnapshot(buildId);
console.log(`snapshot ${buildId}: ${sample.count.toLocaleString('en-US')} CVEs, average record ${sample.avgBytes} bytes; search words: ${sample.words.slice(0, 6).join(', ')}…`);

const server = startApiServer();
const constPort = port + 1;
const constant = startConstantServer(sample.avgBytes, constPort);
const url = `http://127.0.0.1:${port}`;
try {
  const started = performance.now();
  await waitHealthy(url, 600_000);
  console.log(`server ready in ${((performance.now() - started) / 1000).toFixed(1)} s, RSS ${rssMb(server.pid!).toFixed(0)} MB\n`);

  const idPaths = sample.ids.map((id) => `/api/v1/public/cves/${id}`);
  const rows: Row[] = [];
  rows.push(await measure(url, 'GET /cves/{id} (distinct ids)', idPaths, 2, (r) => r.p99 <= 10 && r.rps >= 3000, 'p50 ≤ 2, p99 ≤ 10 ms, ≥ 3,000 req/s'));
  rows.push(await measure(url, 'GET /cves (default page)', ['/api/v1/public/cves'], 5));
  rows.push(
    await measure(
      url,
      'GET /cves filtered',
      ['/api/v1/public/cves?severity=CRITICAL,HIGH&min_cvss=8', '/api/v1/public/cves?severity=MEDIUM&kev_only=false&year=2021', '/api/v1/public/cves?sort=epss&severity_basis=svc&severity=HIGH'],
      20,
    ),
  );
  rows.push(await measure(url, 'GET /cves?search=<one word>', sample.words.map((w) => `/api/v1/public/cves?search=${encodeURIComponent(w)}`), 50));
  rows.push(await measure(url, 'GET /cves/summary', ['/api/v1/public/cves/summary'], 2));

  await waitListening(`http://127.0.0.1:${constPort}${idPaths[0]}`, 30_000);
  await load(`http://127.0.0.1:${constPort}`, idPaths.slice(0, 200), { connections: 1, amount: 500 });
  const ceiling = await load(`http://127.0.0.1:${constPort}`, idPaths, { connections: 16 });
  const ratio = rows[0]!.rps / ceiling.requests.average;

  const exp = await exportRun(url, server.pid!);

  const pad = (s: string, n: number) => s.padEnd(n);
  console.log(`${pad('endpoint', 34)}${pad('p50 ms', 9)}${pad('p99 ms', 9)}${pad('req/s', 9)}target`);
  for (const r of rows) {
    console.log(`${pad(r.name, 34)}${pad(r.p50.toFixed(2), 9)}${pad(r.p99.toFixed(2), 9)}${pad(r.rps.toFixed(0), 9)}${r.target} ${r.ok ? 'ok' : 'MISSED'}`);
  }
  console.log(
    `\nconstant-JSON Hono route (${sample.avgBytes} B): ${ceiling.requests.average.toFixed(0)} req/s; id lookup = ${(ratio * 100).toFixed(0)} % of it (target ≥ 40 %) ${ratio >= 0.4 ? 'ok' : 'MISSED'}`,
  );
  console.log(
    `export: ${exp.rows.toLocaleString('en-US')} rows, ${exp.mb.toFixed(0)} MB in ${exp.seconds.toFixed(2)} s (target ≤ 3 s) ${exp.seconds <= 3 ? 'ok' : 'MISSED'}; server RSS growth ${exp.growthMb.toFixed(1)} MB (target ≤ 64 MB) ${exp.growthMb <= 64 ? 'ok' : 'MISSED'}`,
  );
  console.log(`server RSS at the end: ${rssMb(server.pid!).toFixed(0)} MB`);
} finally {
  server.kill('SIGTERM');
  constant.kill('SIGTERM');
}
