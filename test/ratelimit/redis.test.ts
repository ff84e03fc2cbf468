/**
 * Two replicas (two server processes) sharing the per-minute count through a real
 * redis-server, and what happens when Redis goes away and comes back.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, destroyAgents, sleep, startFixture, startInProcess, startRedis, statuses, waitFor, type FixtureProcess, type RedisProcess } from './helpers.ts';

const CVES = '/api/v1/public/cves';
const CWES = '/api/v1/public/cwes';
const OTHER = '/api/v1/public/other';
const PREFIX = `vulnintel:test:${process.pid}`;

interface Health {
  ok: boolean;
  perMinute: { store: string; redis?: { connection: string; lastError: string | null; outages: number } };
}

async function health(replica: FixtureProcess): Promise<Health> {
  return (await call({ port: replica.port, path: '/health' })).json().rateLimit as Health;
}

async function storeIs(replica: FixtureProcess, store: string): Promise<boolean> {
  return (await health(replica)).perMinute.store === store;
}

let redis: RedisProcess;
let a: FixtureProcess;
let b: FixtureProcess;

beforeAll(async () => {
  redis = await startRedis();
  const env = {
    FIXTURE_REDIS: redis.url,
    VULNINTEL_RATE_PER_MINUTE: 'cves=20,standard=10,other=5',
    VULNINTEL_RATE_PER_SECOND: 'cves=1000,standard=1000,other=1000',
    VULNINTEL_RATE_BURST: '1000',
    VULNINTEL_RATE_WINDOW_MS: '2000',
    VULNINTEL_RATE_REDIS_PREFIX: PREFIX,
    VULNINTEL_RATE_REDIS_TIMEOUT_MS: '150',
    VULNINTEL_RATE_REDIS_PROBE_MS: '200',
  };
  [a, b] = await Promise.all([startFixture(env), startFixture(env)]);
  for (const replica of [a, b]) expect(await waitFor(() => storeIs(replica, 'redis'))).toBe(true);
});

afterAll(async () => {
  destroyAgents();
  await Promise.all([a?.stop(), b?.stop()]);
  redis?.child.kill('SIGCONT');
  await redis?.stop();
});

describe('per-minute count shared across replicas through Redis', () => {
  it('two replicas refuse together once the shared count passes the ceiling', async () => {
    const from = '127.0.0.81';
    const replies: number[] = [];
    for (let i = 0; i < 10; i++) replies.push((await call({ port: (i % 2 ? b : a).port, from, path: CWES })).status);
    // Each replica saw 5; only a shared count of 10 explains the refusals that follow.
    expect(replies).toEqual(Array(10).fill(200));
    for (const replica of [a, b]) {
      const refused = await call({ port: replica.port, from, path: CWES });
      expect(refused.status).toBe(429);
      expect(refused.headers['x-ratelimit-limit']).toBe('10');
      expect(refused.headers['x-ratelimit-window']).toBe('2s');
      expect(refused.json()).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', scope: 'minute' });
    }
    // Tier interplay across replicas: /cves answers on both until the shared count passes 20.
    const cves: number[] = [];
    for (let i = 0; i < 9; i++) cves.push((await call({ port: (i % 2 ? b : a).port, from, path: CVES })).status);
    expect(cves).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429]);
    expect((await call({ port: b.port, from, path: CVES })).status).toBe(429);

    // The count lives in Redis under the caller key: 10 + 2 refused + 9 + 1 (refusals count).
    const client = new Redis(redis.url);
    try {
      expect(await client.get(`${PREFIX}:4:127.0.0.81`)).toBe('22');
      expect(await client.pttl(`${PREFIX}:4:127.0.0.81`)).toBeLessThanOrEqual(2000);
    } finally {
      client.disconnect();
    }
  });

  it('the shared window resets for both replicas when it ends', async () => {
    const from = '127.0.0.82';
    expect(await statuses(5, { port: a.port, from, path: OTHER })).toEqual(Array(5).fill(200));
    const refused = await call({ port: b.port, from, path: OTHER });
    expect(refused.status).toBe(429);
    await sleep(Number(refused.headers['retry-after']) * 1000 + 100);
    expect((await call({ port: b.port, from, path: OTHER })).status).toBe(200);
    expect((await call({ port: a.port, from, path: OTHER })).status).toBe(200);
  });
});

describe('Redis outage and recovery', () => {
  it('keeps serving with local counts while Redis is down, says so, and shares again when it returns', async () => {
    await redis.stop();
    for (const replica of [a, b]) expect(await waitFor(() => storeIs(replica, 'memory-fallback'))).toBe(true);

    // Still limiting, but per replica: each counts this caller on its own.
    const from = '127.0.0.83';
    expect(await statuses(6, { port: a.port, from, path: OTHER })).toEqual([200, 200, 200, 200, 200, 429]);
    expect(await statuses(5, { port: b.port, from, path: OTHER })).toEqual(Array(5).fill(200));

    const degraded = await health(a);
    expect(degraded.ok).toBe(false);
    expect(degraded.perMinute.redis?.outages).toBe(1);
    expect(degraded.perMinute.redis?.lastError).toBeTruthy();
    expect(a.stderr()).toMatch(/Redis unreachable; counting per-minute locally/);

    redis = await startRedis(redis.port);
    for (const replica of [a, b]) expect(await waitFor(() => storeIs(replica, 'redis'))).toBe(true);
    expect((await health(b)).ok).toBe(true);
    expect(b.stderr()).toMatch(/Redis reachable again/);

    const shared = '127.0.0.84';
    const replies: number[] = [];
    for (let i = 0; i < 6; i++) replies.push((await call({ port: (i % 2 ? b : a).port, from: shared, path: OTHER })).status);
    expect(replies).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('a Redis that answers PING but refuses the count (writes refused) stays an outage: local counts hold, one log line', async () => {
    // Its own replica: a window long enough for requests spaced past several probes.
    const c = await startFixture({
      FIXTURE_REDIS: redis.url,
      VULNINTEL_RATE_PER_MINUTE: 'cves=20,standard=10,other=5',
      VULNINTEL_RATE_PER_SECOND: 'cves=1000,standard=1000,other=1000',
      VULNINTEL_RATE_BURST: '1000',
      VULNINTEL_RATE_WINDOW_MS: '30000',
      VULNINTEL_RATE_REDIS_PREFIX: `${PREFIX}:c`,
      VULNINTEL_RATE_REDIS_TIMEOUT_MS: '150',
      VULNINTEL_RATE_REDIS_PROBE_MS: '100',
    });
    const admin = new Redis(redis.url);
    try {
      expect(await waitFor(() => storeIs(c, 'redis'))).toBe(true);
      // Writes (the count's script) fail at once with OOM; PING still answers.
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
      await admin.config('SET', 'maxmemory', '1');
      const from = '127.0.0.86';
      const replies: number[] = [];
      for (let i = 0; i < 6; i++) {
        replies.push((await call({ port: c.port, from, path: OTHER })).status);
        await sleep(250); // past two probes: each PING had sent the replica back to Redis, its local counts dropped
      }
      expect(replies).toEqual([200, 200, 200, 200, 200, 429]);
      expect((await health(c)).perMinute.store).toBe('memory-fallback');
      expect(c.stderr().match(/Redis unreachable/g)).toHaveLength(1);
      expect(c.stderr()).not.toMatch(/Redis reachable again/);
    } finally {
      await admin.config('SET', 'maxmemory', '0');
    }
    try {
      expect(await waitFor(() => storeIs(c, 'redis'))).toBe(true);
      expect(c.stderr()).toMatch(/Redis reachable again/);
    } finally {
      admin.disconnect();
      await c.stop();
    }
  });

  it('a Redis that hangs (no answer, connection open) is an outage too, and recovery is detected', async () => {
    redis.child.kill('SIGSTOP');
    try {
      const from = '127.0.0.85';
      const started = Date.now();
      // Answered from the local count after the command timeout (150 ms), not left waiting.
      expect((await call({ port: a.port, from, path: OTHER })).status).toBe(200);
      expect(Date.now() - started).toBeLessThan(1500);
      expect(await waitFor(() => storeIs(a, 'memory-fallback'), 3000)).toBe(true);
      expect((await health(a)).perMinute.redis?.lastError).toMatch(/timed out/i);
    } finally {
      redis.child.kill('SIGCONT');
    }
    expect(await waitFor(() => storeIs(a, 'redis'))).toBe(true);
    expect(await waitFor(() => storeIs(b, 'redis'))).toBe(true);
  });
});

describe('a Redis that requires a password', () => {
  it('health names the refusal (not "connection closed") while the replica counts locally, and a right password shares', async () => {
    const locked = await startRedis(undefined, ['--requirepass', 's3cret']);
    const env = (url: string) => ({
      FIXTURE_REDIS: url,
      VULNINTEL_RATE_PER_MINUTE: 'cves=20,standard=10,other=5',
      VULNINTEL_RATE_PER_SECOND: 'cves=1000,standard=1000,other=1000',
      VULNINTEL_RATE_BURST: '1000',
      VULNINTEL_RATE_REDIS_PREFIX: `${PREFIX}:pw`,
    });
    const port = locked.port;
    const [wrong, none, right] = await Promise.all([
      startFixture(env(`redis://:wrong@127.0.0.1:${port}`)),
      startFixture(env(`redis://127.0.0.1:${port}`)),
      startFixture(env(`redis://:s3cret@127.0.0.1:${port}`)),
    ]);
    try {
      expect(await waitFor(() => storeIs(right, 'redis'))).toBe(true);
      // Several reconnection attempts later (each an error, then a close), the cause is still shown.
      await sleep(1500);
      const refused = await health(wrong);
      expect(refused.ok).toBe(false);
      expect(refused.perMinute.store).toBe('memory-fallback');
      expect(refused.perMinute.redis?.lastError).toMatch(/^WRONGPASS/);
      expect(JSON.stringify(refused)).not.toMatch(/wrong/);
      expect((await health(none)).perMinute.redis?.lastError).toMatch(/^NOAUTH/);
      // Serving meanwhile, limited per replica.
      expect(await statuses(6, { port: wrong.port, from: '127.0.0.87', path: OTHER })).toEqual([200, 200, 200, 200, 200, 429]);
      expect(wrong.stderr()).toMatch(/Redis not reachable yet; counting per-minute locally/);
    } finally {
      await Promise.all([wrong.stop(), none.stop(), right.stop()]);
      await locked.stop();
    }
  });
});

describe('a replica whose event loop is busy (a burst of requests)', () => {
  it('reads an answer Redis gave in time before calling it late: no outage, so no per-replica counts admitting N times the ceiling', async () => {
    const replica = await startInProcess({
      redisUrl: redis.url,
      redisKeyPrefix: `${PREFIX}:busy`,
      redisCommandTimeoutMs: 150,
      perMinute: { cves: 20, standard: 10, other: 5 },
      perSecond: { cves: 1000, standard: 1000, other: 1000 },
      burstPerSecond: 1000,
    });
    const admin = new Redis(redis.url);
    const from = '127.0.0.88';
    try {
      expect(await replica.limiter.ready()).toBe(true);
      expect((await call({ port: replica.port, from, path: OTHER })).status).toBe(200); // the script is loaded
      // Redis holds the count's answer ~100 ms (writes paused); meanwhile this process is busy
      // for 400 ms, as a replica parsing a burst is. The answer is in the socket long before the
      // 150 ms deadline, but the loop only comes back after it.
      await admin.call('CLIENT', 'PAUSE', '100', 'WRITE');
      const reply = call({ port: replica.port, from, path: OTHER });
      await sleep(50);
      // Busy outside the timers phase (as a replica is, in the poll phase, handling requests):
      // the loop's next turn runs the expired timers before it polls for the waiting answer.
      await new Promise<void>((resolve) =>
        setImmediate(() => {
          const until = Date.now() + 400;
          while (Date.now() < until) {
            // busy
          }
          resolve();
        }),
      );
      expect((await reply).status).toBe(200);
      const health = replica.limiter.health();
      expect(health.perMinute.store).toBe('redis');
      expect(health.perMinute.redis?.outages).toBe(0);
      expect(await admin.get(`${PREFIX}:busy:4:${from}`)).toBe('2');
    } finally {
      admin.disconnect();
      await replica.close();
    }
  });
});
