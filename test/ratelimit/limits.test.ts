/**
 * The limits end to end over real loopback sockets, one replica, per-minute count in memory.
 * Each test uses its own caller addresses (127.0.0.x, distinct callers because loopback is not
 * private), so the tests do not share windows.
 */
import { Hono } from 'hono';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createRateLimiter, defaultRateLimitConfig, validateRateLimitConfig } from '../../api/ratelimit/index.ts';
import { call, captureLogger, closeServer, destroyAgents, listen, sleep, startInProcess, statuses, type InProcessServer } from './helpers.ts';

const CVES = '/api/v1/public/cves';
const CWES = '/api/v1/public/cwes';
const OTHER = '/api/v1/public/other';
/** Small ceilings and a 2-second window; per-second limits out of the way unless a test sets them. */
const SMALL = {
  perMinute: { cves: 20, standard: 10, other: 5 },
  perSecond: { cves: 1000, standard: 1000, other: 1000 },
  burstPerSecond: 1000,
  windowMs: 2000,
};

let servers: InProcessServer[] = [];
async function server(overrides: Parameters<typeof startInProcess>[0] = {}, hostname?: string) {
  const s = await startInProcess({ ...SMALL, ...overrides }, hostname);
  servers.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});
afterAll(destroyAgents);

describe('per-minute ceilings (contract §8.1)', () => {
  it('one count across paths: after the 6,000-tier ceiling those paths refuse while /cves still answers', async () => {
    const { port } = await server();
    const from = '127.0.0.11';
    expect(await statuses(10, { port, from, path: CWES })).toEqual(Array(10).fill(200));

    const refused = await call({ port, from, path: CWES });
    expect(refused.status).toBe(429);
    expect(refused.headers['x-ratelimit-window']).toBe('2s');
    expect(refused.headers['x-ratelimit-limit']).toBe('10');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(2);
    expect(refused.headers['content-type']).toMatch(/application\/json/);
    expect(refused.json()).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', limit: 10, window: '2s', scope: 'minute' });

    // The lower tier refuses too, with its own ceiling in the headers.
    const other = await call({ port, from, path: OTHER });
    expect(other.status).toBe(429);
    expect(other.headers['x-ratelimit-limit']).toBe('5');

    // Count is now 12 (refusals count); /cves answers up to 20, then refuses with its ceiling.
    expect(await statuses(8, { port, from, path: CVES })).toEqual(Array(8).fill(200));
    const cves = await call({ port, from, path: `${CVES}/CVE-2024-0001` });
    expect(cves.status).toBe(429);
    expect(cves.headers['x-ratelimit-limit']).toBe('20');
  });

  it('refused requests count: every refusal brings the higher ceiling closer', async () => {
    const { port } = await server();
    const from = '127.0.0.12';
    await statuses(10, { port, from, path: CWES });
    // Four refused requests: count 14.
    expect(await statuses(4, { port, from, path: CWES })).toEqual([429, 429, 429, 429]);
    // Only 6 more fit under the /cves ceiling of 20 (10 would, were refusals not counted).
    expect(await statuses(7, { port, from, path: CVES })).toEqual([200, 200, 200, 200, 200, 200, 429]);
  });

  it('window is fixed from the first request (not sliding) and resets when it ends', async () => {
    const { port } = await server();
    const from = '127.0.0.13';
    const started = Date.now();
    expect((await call({ port, from, path: OTHER })).status).toBe(200);
    await sleep(1200);
    expect(await statuses(4, { port, from, path: OTHER })).toEqual([200, 200, 200, 200]);
    const refused = await call({ port, from, path: OTHER });
    expect(refused.status).toBe(429);
    // The window opened ~1.2 s ago with the first request: it ends in ≤ 1 s, so Retry-After is 1.
    expect(refused.headers['retry-after']).toBe('1');
    await sleep(Math.max(0, started + 2000 - Date.now()) + 100);
    // A sliding window would still hold the 4 requests sent 0.9 s ago; the fixed one restarted.
    expect(await statuses(5, { port, from, path: OTHER })).toEqual([200, 200, 200, 200, 200]);
    expect((await call({ port, from, path: OTHER })).status).toBe(429);
  });
});

describe('per-second limits and burst cap (contract §8.1, §8.2, §8.4)', () => {
  it('admitted responses carry the per-second headers; the tier limit refuses with a 1s window', async () => {
    const { port } = await server({ perMinute: { cves: 10_000, standard: 10_000, other: 10_000 }, perSecond: { cves: 50, standard: 50, other: 3 } });
    const from = '127.0.0.21';
    const replies = await Promise.all(Array.from({ length: 5 }, () => call({ port, from, path: OTHER })));
    const admitted = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status === 429);
    expect(admitted).toHaveLength(3);
    expect(refused).toHaveLength(2);
    expect(admitted.map((r) => r.headers['x-ratelimit-remaining']).sort()).toEqual(['0', '1', '2']);
    for (const r of admitted) {
      expect(r.headers['x-ratelimit-limit']).toBe('3');
      expect(r.headers['x-ratelimit-window']).toBe('1s');
      expect(r.headers['x-ratelimit-reset']).toBe('1');
    }
    for (const r of refused) {
      expect(r.headers['retry-after']).toBe('1');
      expect(r.headers['x-ratelimit-window']).toBe('1s');
      expect(r.json()).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', scope: 'second', limit: 3, window: '1s' });
    }
    // Another tier has its own per-second allowance in the same second.
    const cves = await call({ port, from, path: CVES });
    expect(cves.status).toBe(200);
    expect(cves.headers['x-ratelimit-limit']).toBe('50');
    // The per-minute count is hidden on admitted responses (§8.4): no header mentions 60s.
    expect(cves.headers['x-ratelimit-window']).toBe('1s');
  });

  it('the burst cap bounds all tiers together', async () => {
    const { port, limiter } = await server({
      perMinute: { cves: 10_000, standard: 10_000, other: 10_000 },
      perSecond: { cves: 8, standard: 8, other: 8 },
      burstPerSecond: 10,
    });
    const from = '127.0.0.22';
    const paths = [...Array(8).fill(CVES), ...Array(8).fill(CWES)] as string[];
    const replies = await Promise.all(paths.map((path) => call({ port, from, path })));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(10);
    const refused = replies.filter((r) => r.status === 429);
    expect(refused).toHaveLength(6);
    for (const r of refused) expect(r.json()).toMatchObject({ scope: 'burst', limit: 10, window: '1s' });
    expect(limiter.health().refused).toEqual({ minute: 0, second: 0, burst: 6 });
  });

  it('a per-second refusal is not sent on to the per-minute count', async () => {
    const { port } = await server({ perMinute: { cves: 20, standard: 10, other: 5 }, perSecond: { cves: 100, standard: 100, other: 3 } });
    const from = '127.0.0.23';
    const first = await Promise.all(Array.from({ length: 6 }, () => call({ port, from, path: OTHER })));
    expect(first.filter((r) => r.status === 200)).toHaveLength(3);
    await sleep(1050);
    // Per-minute count is 3, not 6: two more fit under the ceiling of 5, then the minute refuses.
    const after = [await call({ port, from, path: OTHER }), await call({ port, from, path: OTHER }), await call({ port, from, path: OTHER })];
    expect(after.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(after[2]!.json()).toMatchObject({ scope: 'minute', limit: 5 });
  });
});

describe('who is one caller (contract §5.2, §8.3)', () => {
  it('loopback addresses are separate callers; spoofed headers change nothing', async () => {
    const { port } = await server();
    const a = '127.0.0.31';
    const b = '127.0.0.32';
    expect(await statuses(5, { port, from: a, path: OTHER })).toEqual(Array(5).fill(200));
    const spoof = {
      'X-Forwarded-For': '203.0.113.9',
      'X-Real-IP': '203.0.113.9',
      Forwarded: 'for=203.0.113.9',
      'True-Client-IP': '203.0.113.9',
      'CF-Connecting-IP': '203.0.113.9',
      'Fastly-Client-IP': '203.0.113.9',
    };
    // The exhausted caller cannot escape by claiming another address …
    expect((await call({ port, from: a, path: OTHER, headers: spoof })).status).toBe(429);
    // … and another caller cannot be charged by claiming to be it.
    const framed = { 'X-Forwarded-For': a, 'X-Real-IP': a };
    expect(await statuses(5, { port, from: b, path: OTHER, headers: framed })).toEqual(Array(5).fill(200));
    expect((await call({ port, from: b, path: OTHER })).status).toBe(429);
  });

  it('::1 and 127.0.0.1 are different callers', async () => {
    const { port } = await server();
    expect(await statuses(6, { port, from: '127.0.0.33', path: OTHER })).toEqual([200, 200, 200, 200, 200, 429]);
    expect((await call({ port, from: '::1', path: OTHER })).status).toBe(200);
  });

  it('IPv4-mapped IPv6 on a dual-stack socket is the same caller as on an IPv4 socket', async () => {
    // One limiter mounted on two servers: "::" records ::ffff:127.0.0.34, "127.0.0.1" records 127.0.0.34.
    const dual = await server({}, '::');
    const { buildFixtureApp } = await import('./fixture-app.ts');
    const { server: v4server, port: v4port } = await listen(buildFixtureApp(dual.limiter).fetch, '127.0.0.1');
    try {
      const from = '127.0.0.34';
      // An IPv4 client reaching the "::" listener is recorded as ::ffff:127.0.0.34.
      expect(await statuses(3, { port: dual.port, from, path: OTHER })).toEqual([200, 200, 200]);
      expect(await statuses(3, { port: v4port, from, path: OTHER })).toEqual([200, 200, 429]);
    } finally {
      await closeServer(v4server);
    }
  });

  it('--trust-proxy: the hop appended by a trusted proxy is the caller; untrusted peers are not believed', async () => {
    const { port } = await server({ trustProxy: ['127.0.0.41/32'] });
    const proxy = '127.0.0.41';
    const client = { 'X-Forwarded-For': '198.51.100.1, 203.0.113.5' };
    expect(await statuses(5, { port, from: proxy, path: OTHER, headers: client })).toEqual(Array(5).fill(200));
    expect((await call({ port, from: proxy, path: OTHER, headers: client })).status).toBe(429);
    // Another client behind the same proxy has its own allowance; so does the proxy itself.
    expect((await call({ port, from: proxy, path: OTHER, headers: { 'X-Forwarded-For': '203.0.113.6' } })).status).toBe(200);
    expect((await call({ port, from: proxy, path: OTHER })).status).toBe(200);
    // An untrusted peer sending the same header is keyed by its own address.
    expect((await call({ port, from: '127.0.0.42', path: OTHER, headers: { 'X-Forwarded-For': '203.0.113.5' } })).status).toBe(200);
  });
});

describe('what is not limited, and CORS', () => {
  it('OPTIONS preflights are not counted, paths outside /api/v1/public are never refused', async () => {
    const { port } = await server();
    const from = '127.0.0.51';
    const preflight = { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET' };
    for (let i = 0; i < 8; i++) {
      expect((await call({ port, from, path: OTHER, method: 'OPTIONS', headers: preflight })).status).toBe(204);
    }
    expect(await statuses(6, { port, from, path: OTHER })).toEqual([200, 200, 200, 200, 200, 429]);
    expect((await call({ port, from, path: OTHER, method: 'OPTIONS', headers: preflight })).status).toBe(204);
    expect((await call({ port, from, path: '/api/v1/openapi.json' })).status).toBe(200);
    expect((await call({ port, from, path: '/health' })).status).toBe(200);
  });

  it('HEAD counts and is refused without a body', async () => {
    const { port } = await server();
    const from = '127.0.0.52';
    expect(await statuses(5, { port, from, path: OTHER, method: 'HEAD' })).toEqual(Array(5).fill(200));
    const refused = await call({ port, from, path: OTHER, method: 'HEAD' });
    expect(refused.status).toBe(429);
    expect(refused.body).toBe('');
    expect(refused.headers['retry-after']).toBeDefined();
  });

  it('429s carry CORS headers from the server CORS middleware, and are not cacheable', async () => {
    const { port } = await server();
    const from = '127.0.0.53';
    await statuses(5, { port, from, path: OTHER });
    const refused = await call({ port, from, path: OTHER, headers: { Origin: 'https://app.example' } });
    expect(refused.status).toBe(429);
    expect(refused.headers['access-control-allow-origin']).toBe('*');
    expect(String(refused.headers['access-control-expose-headers'])).toMatch(/Retry-After/);
    expect(String(refused.headers['access-control-expose-headers'])).toMatch(/X-RateLimit-Window/);
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(refused.headers['x-content-type-options']).toBe('nosniff');
  });

  it('429s carry CORS and nosniff even when no CORS middleware ran before the limiter', async () => {
    const limiter = createRateLimiter(defaultRateLimitConfig({ ...SMALL, logger: captureLogger().logger }));
    const app = new Hono();
    app.use('*', limiter.middleware);
    app.get('/api/v1/public/other', (c) => c.json({}));
    const { server: bare, port } = await listen(app.fetch, '::');
    try {
      const from = '127.0.0.54';
      await statuses(5, { port, from, path: OTHER });
      const refused = await call({ port, from, path: OTHER, headers: { Origin: 'https://app.example' } });
      expect(refused.status).toBe(429);
      expect(refused.headers['access-control-allow-origin']).toBe('*');
      expect(String(refused.headers['access-control-expose-headers'])).toMatch(/Retry-After/);
      expect(refused.headers['x-content-type-options']).toBe('nosniff');
    } finally {
      await closeServer(bare);
      await limiter.close();
    }
  });
});

describe('without a socket (in-process app.request)', () => {
  it('sets the headers through Hono and counts every such request as one unknown caller', async () => {
    const limiter = createRateLimiter(defaultRateLimitConfig({ ...SMALL, logger: captureLogger().logger }));
    const app = new Hono();
    app.use('*', limiter.middleware);
    app.get('/api/v1/public/other', (c) => c.json({}));
    try {
      const first = await app.request(OTHER);
      expect(first.status).toBe(200);
      expect(first.headers.get('X-RateLimit-Limit')).toBe('1000');
      expect(first.headers.get('X-RateLimit-Window')).toBe('1s');
      for (let i = 0; i < 4; i++) await app.request(OTHER, { headers: { 'X-Forwarded-For': `203.0.113.${i}` } });
      expect((await app.request(OTHER)).status).toBe(429);
    } finally {
      await limiter.close();
    }
  });
});

describe('configuration', () => {
  it('defaults are the contract numbers, plus the web area\'s own tier (docs/rate-limits.md)', () => {
    const config = defaultRateLimitConfig();
    expect(config.perMinute).toEqual({ cves: 12_000, standard: 6_000, other: 600, pulse: 1_200 });
    expect(config.perSecond).toEqual({ cves: 200, standard: 100, other: 10, pulse: 20 });
    expect(config.burstPerSecond).toBe(500);
    expect(config.windowMs).toBe(60_000);
    expect(config.secondWindowMs).toBe(1_000);
  });

  it('refuses settings that would make the limiter silently wrong', () => {
    expect(() => createRateLimiter(defaultRateLimitConfig({ windowMs: 1500 }))).toThrow(/whole seconds/);
    expect(() => createRateLimiter(defaultRateLimitConfig({ perMinute: { cves: 0, standard: 1, other: 1 } }))).toThrow(/perMinute.cves/);
    expect(() => createRateLimiter(defaultRateLimitConfig({ trustProxy: ['nope'] }))).toThrow(/--trust-proxy/);
    // Taken before, the replica counted alone for ever, reconnecting to nothing.
    expect(() => createRateLimiter(defaultRateLimitConfig({ redisUrl: 'localhost:6379' }))).toThrow(/--redis: must be redis:\/\/ or rediss:\/\//);
    expect(() => createRateLimiter(defaultRateLimitConfig({ redisUrl: 'redis-server' }))).toThrow(/--redis: not a URL: "redis-server"/);
    expect(() => createRateLimiter(defaultRateLimitConfig({ redisUrl: 'http://127.0.0.1:6379' }))).toThrow(/--redis: must be redis:\/\/ or rediss:\/\/, got "http:"/);
    // The path is the database number: ioredis selected parseInt("abc"), SELECT NaN before every
    // count, and the replica crashed on its first rate-limited request (an unhandled rejection).
    expect(() => createRateLimiter(defaultRateLimitConfig({ redisUrl: 'redis://:pw@127.0.0.1:6379/abc' }))).toThrow(
      /^--redis: the URL's path is the database number \(e\.g\. redis:\/\/127\.0\.0\.1:6379\/0\), got "abc" in "redis:\/\/:\*\*\*@127\.0\.0\.1:6379\/abc"$/,
    );
    expect(() => createRateLimiter(defaultRateLimitConfig({ redisUrl: 'redis://127.0.0.1:6379?db=x' }))).toThrow(/--redis: .*database number.*got "x"/);
    expect(() => createRateLimiter(defaultRateLimitConfig({ redisUrl: 'redis://127.0.0.1:6379/0/' }))).toThrow(/--redis: .*got "0\/"/);
    for (const url of ['redis://127.0.0.1:6379', 'redis://127.0.0.1:6379/', 'redis://127.0.0.1:6379/2', 'rediss://u:p@127.0.0.1:6380/15?db=3']) {
      expect(() => validateRateLimitConfig(defaultRateLimitConfig({ redisUrl: url }))).not.toThrow();
    }
  });
});
