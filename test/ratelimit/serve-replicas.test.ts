/**
 * Issue 4 end to end: two real `vulnintel serve` processes on the sample snapshot, no proxy,
 * one real redis-server. The per-minute count is shared: once the replicas together pass a
 * tier's ceiling, both refuse that tier, while the higher `/cves` tier still answers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCorpus } from '../helpers/sample-snapshot.ts';
import { freePort, startRedis, waitFor, type RedisProcess } from './helpers.ts';

const BIN = resolve(import.meta.dirname, '..', '..', 'bin', 'vulnintel.mjs');
let redis: RedisProcess;
interface Replica {
  child: ChildProcess;
  base: string;
}
const replicas: Replica[] = [];
const replica = (i: number): Replica => {
  const r = replicas[i];
  if (!r) throw new Error(`replica ${i} did not start`);
  return r;
};

async function startReplica(dataDir: string, redisUrl: string): Promise<Replica> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve', '--data', dataDir, '--host', '127.0.0.1', '--port', String(port), '--redis', redisUrl], {
    env: { ...process.env, VULNINTEL_QUIET: '1', VULNINTEL_RATE_PER_MINUTE: 'cves=30,standard=10,other=5', VULNINTEL_RATE_PER_SECOND: 'cves=1000,standard=1000,other=1000', VULNINTEL_RATE_BURST: '5000' },
    stdio: 'ignore',
  });
  const base = `http://127.0.0.1:${port}`;
  const up = await waitFor(async () => (await fetch(`${base}/api/v1/health`).catch(() => null))?.ok === true, 30_000, 200);
  if (!up) throw new Error(`vulnintel serve did not start on ${port}`);
  return { child, base };
}

beforeAll(async () => {
  const { dataDir } = await buildCorpus();
  redis = await startRedis();
  const url = `redis://127.0.0.1:${redis.port}`;
  replicas.push(await startReplica(dataDir, url), await startReplica(dataDir, url));
}, 120_000);

afterAll(async () => {
  for (const r of replicas) r.child.kill('SIGTERM');
  await redis?.stop();
});

describe('two vulnintel serve replicas sharing Redis', () => {
  it('refuse a tier together once their shared count passes its ceiling, while /cves still answers', async () => {
    const [a, b] = [replica(0), replica(1)];
    // Ten /cwes requests, alternating replicas: exactly the 6,000-tier ceiling (here 10).
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${(i % 2 ? b : a).base}/api/v1/public/cwes`);
      expect(res.status).toBe(200);
    }
    for (const r of [a, b]) {
      const refused = await fetch(`${r.base}/api/v1/public/cwes`);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('x-ratelimit-window')).toBe('60s');
      expect(refused.headers.get('x-ratelimit-limit')).toBe('10');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.headers.get('access-control-allow-origin')).toBe('*');
      expect(refused.headers.get('x-content-type-options')).toBe('nosniff');
      expect(((await refused.json()) as { code: string }).code).toBe('RATE_LIMIT_EXCEEDED');
    }
    // 12 counted so far; the /cves ceiling is 30: still served on both replicas.
    expect((await fetch(`${a.base}/api/v1/public/cves/CVE-2024-3400`)).status).toBe(200);
    expect((await fetch(`${b.base}/api/v1/public/cves?limit=1`)).status).toBe(200);
    // The replicas report the shared store in their health.
    const health = (await (await fetch(`${a.base}/api/v1/health`)).json()) as { rate_limit: Record<string, unknown> };
    expect(JSON.stringify(health.rate_limit)).toMatch(/redis/);
  });

  it('a header naming another client changes nothing', async () => {
    const a = replica(0);
    const res = await fetch(`${a.base}/api/v1/public/cwes`, { headers: { 'X-Forwarded-For': '203.0.113.9', 'X-Real-IP': '203.0.113.9' } });
    expect(res.status).toBe(429);
  });
});
