/**
 * `npm run bench:pulse`: server time of the /pulse pages at full scale (PULSE §7: p50 ≤ 50 ms).
 *
 * The snapshot is bench:api's (`data/bench/data-<N>-<seed>`, built from
 * `data/bench/raw-<N>-<seed>` when absent). The server runs as its own process (`vulnintel
 * serve --no-rate-limit`). Each page is asked BENCH_PAGE_REQUESTS times, one request after the
 * other, without If-None-Match (every answer is rendered); the figures are the server time the
 * page reports in its `Server-Timing` header (reading the snapshot and rendering), and the round
 * trip seen by this process beside it. CVE pages rotate over distinct ids.
 *
 * Environment: BENCH_CVES (340000), BENCH_SEED (1), BENCH_PAGE_REQUESTS (200), BENCH_PORT (18490).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { cli, cves, data, ensureSnapshot, root, waitHealthy } from './full-scale.ts';

const requests = Number(process.env.BENCH_PAGE_REQUESTS ?? 200);
const port = Number(process.env.BENCH_PORT ?? 18490);
const base = `http://127.0.0.1:${port}`;

interface Timing {
  server: number;
  roundTrip: number;
}

async function measure(paths: string[], n: number): Promise<Timing[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const out: Timing[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const path = paths[i % paths.length]!;
      const started = process.hrtime.bigint();
      const { status, timing } = await new Promise<{ status: number; timing: string }>((done, fail) => {
        const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
          res.resume();
          res.on('end', () => done({ status: res.statusCode ?? 0, timing: String(res.headers['server-timing'] ?? '') }));
        });
        req.on('error', fail);
        req.end();
      });
      if (status !== 200) throw new Error(`${path}: status ${status}`);
      const server = Number(/dur=([\d.]+)/.exec(timing)?.[1] ?? NaN);
      out.push({ server, roundTrip: Number(process.hrtime.bigint() - started) / 1e6 });
    }
  } finally {
    agent.destroy();
  }
  return out;
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<void> {
  const buildId = await ensureSnapshot();
  const server: ChildProcess = spawn(process.execPath, [cli, 'serve', '--data', data, '--host', '127.0.0.1', '--port', String(port), '--no-rate-limit'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  try {
    const opened = performance.now();
    await waitHealthy(base, 300_000);
    console.log(`server ready in ${((performance.now() - opened) / 1000).toFixed(1)} s (snapshot ${buildId})`);
    const list = (await (await fetch(`${base}/api/v1/public/cves?limit=200&sort=epss`)).json()) as { cves: { cve_id: string }[] };
    const ids = list.cves.map((c) => c.cve_id);
    const advisories = (await (await fetch(`${base}/api/v1/public/vendor-advisories?limit=50`)).json()) as { advisories: { vendor: string; advisory_id: string }[] };
    const page1 = (await (await fetch(`${base}/api/v1/public/cves?limit=25&skip_count=true`)).json()) as { next_published: string; next_cve_id: string };
    const cases: [string, string[]][] = [
      ['dashboard', ['/pulse']],
      ['CVE list, first page', ['/pulse/cves']],
      ['CVE list, keyset page 2', [`/pulse/cves?before_published=${encodeURIComponent(page1.next_published)}&before_cve_id=${page1.next_cve_id}&back=-`]],
      ['CVE list, filtered (CRITICAL, KEV)', ['/pulse/cves?severity=CRITICAL&severity_basis=svc&kev_only=true']],
      ['CVE list, sorted by EPSS, page 3', ['/pulse/cves?sort=epss&offset=50']],
      ['CVE list, one-word search', ['/pulse/cves?search=overflow', '/pulse/cves?search=injection', '/pulse/cves?search=remote']],
      ['CVE page (distinct ids)', ids.map((id) => `/pulse/cves/${id}`)],
      ['advisories', ['/pulse/advisories']],
      ['advisory page', advisories.advisories.map((a) => `/pulse/advisories/${encodeURIComponent(a.vendor)}/${encodeURIComponent(a.advisory_id)}`)],
      ['subscribe', ['/pulse/subscribe']],
      ['subscribe with preview', ['/pulse/subscribe?vendor=microsoft&min_severity=HIGH']],
    ];
    console.log(`\n/pulse pages at ${cves.toLocaleString('en-US')} CVEs, ${requests} requests each (target: server time p50 ≤ 50 ms)\n`);
    console.log('page'.padEnd(38), 'server p50', ' p90', '   p99', '  round trip p50');
    for (const [label, paths] of cases) {
      await measure(paths, Math.min(5, requests)); // warm: first renders, memoised per-snapshot values
      const t = await measure(paths, requests);
      const server = t.map((x) => x.server).sort((a, b) => a - b);
      const trip = t.map((x) => x.roundTrip).sort((a, b) => a - b);
      const p50 = pct(server, 50);
      console.log(
        label.padEnd(38),
        `${p50.toFixed(1).padStart(7)} ms`,
        pct(server, 90).toFixed(1).padStart(6),
        pct(server, 99).toFixed(1).padStart(6),
        `${pct(trip, 50).toFixed(1).padStart(9)} ms`,
        p50 <= 50 ? '' : '  ← over target',
      );
    }
  } finally {
    server.kill('SIGTERM');
  }
}

await main();
