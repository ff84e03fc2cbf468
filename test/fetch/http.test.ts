import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { DEFAULT_CONFIG } from '../../cli/fetch/config.ts';
import { HttpClient, deadHostSeconds } from '../../cli/fetch/http.ts';
import { parseRetryAfter } from '../../lib/retry-after.ts';
import { RollingWindowLimiter } from '../../cli/fetch/rate-limit.ts';
import { routes, startServer, testHttp, type Reply } from './helpers.ts';

describe('HTTP client', () => {
  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-10-01T12:00:00Z');
    expect(parseRetryAfter('30', now)).toBe(30_000);
    expect(parseRetryAfter('Thu, 01 Oct 2026 12:00:45 GMT', now)).toBe(45_000);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });

  it('rewrites mirrored URL prefixes, first match wins', () => {
    const http = new HttpClient({
      rewrites: [
        { from: 'https://github.com/', to: 'https://mirror.corp/gh/' },
        { from: 'https://', to: 'https://never/' },
      ],
    });
    expect(http.rewrite('https://github.com/CVEProject/x.zip')).toBe('https://mirror.corp/gh/CVEProject/x.zip');
    expect(http.rewrite('http://plain/')).toBe('http://plain/');
    void http.close();
  });

  it('does not retry a 404, and puts the plain-text error body in the message', async () => {
    const server = await startServer(routes({}));
    const { http, sleeps } = testHttp();
    await expect(http.getBytes(`${server.base}/missing`)).rejects.toThrow(/GET http:\/\/127\.0\.0\.1:\d+\/missing: HTTP 404 \(not found\)$/);
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
    await server.close();
  });

  it('follows redirects to another host; a loop or too long a chain fails at once, saying so', async () => {
    const target = await startServer(() => ({ body: 'moved here' }));
    // Another origin: same address, host named differently.
    const elsewhere = target.base.replace('127.0.0.1', 'localhost');
    const server = await startServer((req) => {
      if (req.url === '/moved') return { status: 302, headers: { location: `${elsewhere}/file.json` } };
      if (req.url === '/loop') return { status: 301, headers: { location: '/loop-b' } };
      if (req.url === '/loop-b') return { status: 301, headers: { location: '/loop' } };
      if (req.url === '/nowhere') return { status: 302 };
      const n = Number(/^\/chain-(\d+)$/.exec(req.url ?? '')?.[1] ?? NaN);
      return { status: 308, headers: { location: `/chain-${n + 1}` } };
    });
    const { http, sleeps } = testHttp();
    expect((await http.getBytes(`${server.base}/moved`)).body.toString()).toBe('moved here');
    expect(target.requests.map((r) => r.headers.host)).toEqual([new URL(elsewhere).host]);
    await expect(http.getBytes(`${server.base}/loop`)).rejects.toThrow(/^GET http:\/\/127\.0\.0\.1:\d+\/loop: redirect loop \(a redirect led back to a URL already visited\)$/);
    await expect(http.getBytes(`${server.base}/chain-0`)).rejects.toThrow(/\/chain-0: HTTP 308 \(more than 5 redirects, the last to \/chain-6\)$/);
    await expect(http.getBytes(`${server.base}/nowhere`)).rejects.toThrow(/\/nowhere: HTTP 302 \(a redirect without a Location header\)$/);
    // Each failed once, without retries.
    expect(server.requests.filter((r) => r.path === '/loop')).toHaveLength(1);
    expect(sleeps).toEqual([]);
    await server.close();
    await target.close();
  });

  it("retries Cloudflare's origin errors (NVD answers 524 when its backend times out)", async () => {
    const answers: Reply[] = [
      { status: 524, headers: { 'content-type': 'text/html', server: 'cloudflare' }, body: '<!DOCTYPE html><title>A timeout occurred | services.nvd.nist.gov | Cloudflare</title>' },
      { status: 522, headers: { server: 'cloudflare' }, body: 'Connection timed out' },
      { status: 520, headers: { server: 'cloudflare' }, body: '' },
      { body: 'ok' },
    ];
    let n = 0;
    const server = await startServer(() => answers[n++]!);
    const { http, sleeps } = testHttp();
    expect((await http.getBytes(`${server.base}/rest/json/cves/2.0`)).body.toString()).toBe('ok');
    expect(server.requests).toHaveLength(4);
    expect(sleeps).toHaveLength(3);
    await server.close();
  });

  // GitHub's answer when the unauthenticated API's 60 calls an hour are spent (the CVE List's
  // release listing reads api.github.com), headers and body as GitHub sends them.
  const exhausted = (resetAt: number) => ({
    status: 403,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(resetAt),
      'x-ratelimit-used': '60',
      'x-ratelimit-resource': 'core',
    },
    body: '{"message":"API rate limit exceeded for 203.0.113.7. (But here\'s the good news: Authenticated requests get a higher rate limit. Check out the documentation for more details.)","documentation_url":"https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"}',
  });

  it('waits for a used-up rate limit to reset (GitHub: 403, x-ratelimit-remaining 0), then reads', async () => {
    const now = Date.parse('2026-11-26T12:00:00Z');
    let n = 0;
    const server = await startServer(() => (n++ === 0 ? exhausted(now / 1000 + 30) : { body: '[]' }));
    const sleeps: number[] = [];
    const http = new HttpClient({ maxRetryWaitMs: 300_000, sleep: async (ms) => void sleeps.push(ms), now: () => now });
    expect((await http.getBytes(`${server.base}/repos/CVEProject/cvelistV5/releases`)).body.toString()).toBe('[]');
    // Until the reset, and a second more: no earlier retry that would be refused again.
    expect(sleeps).toEqual([31_000]);
    expect(server.requests).toHaveLength(2);
    await server.close();
  });

  it("waits out GitHub's secondary rate limit (403 with Retry-After, calls still left), then reads", async () => {
    let n = 0;
    const server = await startServer(() =>
      n++ === 0
        ? {
            status: 403,
            headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': '60', 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '41' },
            body: '{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits","status":"403"}',
          }
        : { body: '[]' },
    );
    const sleeps: number[] = [];
    const http = new HttpClient({ maxRetryWaitMs: 300_000, sleep: async (ms) => void sleeps.push(ms) });
    expect((await http.getBytes(`${server.base}/repos/CVEProject/cvelistV5/releases`)).body.toString()).toBe('[]');
    expect(sleeps).toEqual([60_000]);
    await server.close();
  });

  it('says until when a rate limit is used up when its reset is further than one wait, without retrying', async () => {
    const now = Date.parse('2026-11-26T12:00:00Z');
    const server = await startServer(() => exhausted(now / 1000 + 3600));
    const sleeps: number[] = [];
    const http = new HttpClient({ maxRetryWaitMs: 300_000, sleep: async (ms) => void sleeps.push(ms), now: () => now });
    await expect(http.getBytes(`${server.base}/releases`)).rejects.toThrow(/HTTP 403 \(.*API rate limit exceeded.*; 127\.0\.0\.1:\d+'s rate limit is used up until 2026-11-26T13:00:00\.000Z\)$/);
    expect(sleeps).toEqual([]);
    expect(server.requests).toHaveLength(1);
    await server.close();
  });

  it('asks for JSON read whole compressed and decodes gzip, deflate and br; Content-Length counts the bytes sent', async () => {
    const json = JSON.stringify({ vulnerabilities: Array.from({ length: 500 }, (_, i) => ({ cve: { id: `CVE-2026-${10000 + i}` } })) });
    const encoders: Record<string, (b: Buffer) => Buffer> = { gzip: (b) => gzipSync(b), deflate: (b) => deflateSync(b), br: (b) => brotliCompressSync(b) };
    for (const coding of ['gzip', 'deflate', 'br']) {
      // As a server does: the coding the client accepts, else the identity.
      const server = await startServer((req) => {
        const accepted = String(req.headers['accept-encoding'] ?? '');
        if (!accepted.includes(coding)) return { body: json };
        return { headers: { 'content-encoding': coding, vary: 'Accept-Encoding' }, body: encoders[coding]!(Buffer.from(json)) };
      });
      const { http } = testHttp();
      const res = await http.getBytes(`${server.base}/rest/json/cves/2.0`);
      expect(server.requests[0]!.headers['accept-encoding'], coding).toBe('gzip, deflate, br');
      expect(res.body.toString('utf8'), coding).toBe(json);
      await server.close();
    }
  });

  // RFC 9110 §8.4.1.2: "Some non-conformant implementations send the 'deflate' compressed data
  // without the zlib wrapper." Asked for deflate, such a server's answer never decoded.
  it('decodes a deflate body sent without the zlib wrapper (raw DEFLATE), as browsers do', async () => {
    const json = JSON.stringify({ value: [{ ID: '2024-Jan', CvrfUrl: 'https://api.msrc.microsoft.com/cvrf/v3.0/cvrf/2024-Jan' }] });
    const server = await startServer(() => ({ headers: { 'content-encoding': 'deflate' }, body: deflateRawSync(Buffer.from(json)) }));
    const { http, sleeps } = testHttp();
    expect((await http.getBytes(`${server.base}/updates`)).body.toString('utf8')).toBe(json);
    expect(sleeps).toEqual([]);
    await server.close();
  });

  it('retries a compressed body cut short, and names an unknown coding', async () => {
    const packed = gzipSync(Buffer.from(JSON.stringify({ ok: true })));
    let n = 0;
    // Chunked (no Content-Length), the first answer cut: only the decompression can tell.
    const chunked = createServer((_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end(n++ === 0 ? packed.subarray(0, packed.length - 8) : packed);
    });
    await new Promise<void>((r) => chunked.listen(0, '127.0.0.1', r));
    const { http, sleeps } = testHttp();
    expect(JSON.parse((await http.getBytes(`http://127.0.0.1:${(chunked.address() as AddressInfo).port}/x`)).body.toString())).toEqual({ ok: true });
    expect(n).toBe(2);
    expect(sleeps).toHaveLength(1);
    await new Promise((r) => chunked.close(r));
    const odd = await startServer(() => ({ headers: { 'content-encoding': 'zstd' }, body: 'x' }));
    await expect(testHttp().http.getBytes(`${odd.base}/y`)).rejects.toThrow(/^GET http:\/\/127\.0\.0\.1:\d+\/y: unsupported Content-Encoding "zstd"$/);
    await odd.close();
  });

  it('waits at least minRetryWaitMs for the statuses it names, longer when Retry-After says so', async () => {
    const answers = [{ status: 403 }, { status: 403, headers: { 'retry-after': '45' } }, { status: 403, headers: { 'retry-after': '2' } }, { status: 503 }, { body: 'ok' }];
    let n = 0;
    const server = await startServer(() => answers[n++]!);
    const sleeps: number[] = [];
    const http = new HttpClient({ retries: 4, backoffMs: 10, maxRetryWaitMs: 300_000, sleep: async (ms) => void sleeps.push(ms) });
    const res = await http.getBytes(`${server.base}/x`, { retryOn: [403, 503], minRetryWaitMs: { 403: 31_000 } });
    expect(res.body.toString()).toBe('ok');
    expect(sleeps.slice(0, 3)).toEqual([31_000, 45_000, 31_000]);
    // Other statuses keep their backoff.
    expect(sleeps[3]).toBeLessThan(1000);
    await server.close();
  });

  it('takes Retry-After: 0 as no hint: the backoff applies, the retry does not go out at once', async () => {
    let n = 0;
    const server = await startServer(() => (n++ < 2 ? { status: n === 1 ? 503 : 429, headers: { 'retry-after': '0' } } : { body: 'ok' }));
    const sleeps: number[] = [];
    const http = new HttpClient({ backoffMs: 2000, sleep: async (ms) => void sleeps.push(ms) });
    expect((await http.getBytes(`${server.base}/x`)).body.toString()).toBe('ok');
    expect(sleeps).toHaveLength(2);
    // 2 s then 4 s, ±25 % jitter.
    expect(sleeps[0]).toBeGreaterThanOrEqual(1500);
    expect(sleeps[1]).toBeGreaterThanOrEqual(3000);
    await server.close();
  });

  it('caps a huge Retry-After at maxRetryWaitMs', async () => {
    let n = 0;
    const server = await startServer(() => (n++ === 0 ? { status: 429, headers: { 'retry-after': '86400' } } : { body: 'ok' }));
    const sleeps: number[] = [];
    const http = new HttpClient({ maxRetryWaitMs: 5000, sleep: async (ms) => void sleeps.push(ms) });
    const res = await http.getBytes(`${server.base}/x`);
    expect(res.body.toString()).toBe('ok');
    expect(sleeps).toEqual([5000]);
    await server.close();
  });
});

describe('a host that accepts the connection and never answers', () => {
  it('costs at most about two minutes per source with the defaults (all attempts at full timeout, largest backoffs)', () => {
    const h = DEFAULT_CONFIG.http;
    expect(deadHostSeconds(h)).toBe((h.retries + 1) * h.timeoutSeconds + [0, 1, 2].slice(0, h.retries).reduce((n, i) => n + h.backoffSeconds * 2 ** i * 1.25, 0));
    expect(deadHostSeconds(h)).toBe(117.5);
    expect(deadHostSeconds(h)).toBeLessThanOrEqual(120);
    // The old defaults (120 s, 4 retries): 10 minutes and more.
    expect(deadHostSeconds({ ...h, timeoutSeconds: 120, retries: 4 })).toBeGreaterThan(600);
    const client = new HttpClient();
    expect(client.timeoutMs).toBe(h.timeoutSeconds * 1000);
    void client.close();
  });

  it('gives up after retries × the timeout, naming the URL, with small injected timeouts', async () => {
    const server = await startServer(() => new Promise(() => {}));
    const http = new HttpClient({
      dispatcher: new Agent({ headersTimeout: 150, bodyTimeout: 150 }),
      timeoutMs: 150,
      retries: 2,
      backoffMs: 10,
    });
    const started = performance.now();
    await expect(http.getBytes(`${server.base}/never`)).rejects.toThrow(/^GET http:\/\/127\.0\.0\.1:\d+\/never: .*UND_ERR_HEADERS_TIMEOUT.* after 3 attempts$/);
    const elapsed = (performance.now() - started) / 1000;
    expect(server.requests).toHaveLength(3);
    expect(elapsed).toBeGreaterThanOrEqual(3 * 0.15);
    await http.close();
    await server.close();
  });
});

describe('proxy from the environment', () => {
  it('sends requests through HTTP_PROXY, except for NO_PROXY hosts', async () => {
    const seen: string[] = [];
    // A forward proxy sees absolute-form request targets (`GET http://host/path`).
    const proxy = await startServer((req) => {
      seen.push(`${req.method} ${req.url} ${req.headers['user-agent']?.split(' ')[0]}`);
      return { body: 'via proxy' };
    });
    const direct = await startServer(() => ({ body: 'direct' }));
    const saved = { HTTP_PROXY: process.env.HTTP_PROXY, http_proxy: process.env.http_proxy, NO_PROXY: process.env.NO_PROXY, no_proxy: process.env.no_proxy };
    try {
      delete process.env.http_proxy;
      delete process.env.no_proxy;
      process.env.HTTP_PROXY = proxy.base;
      process.env.NO_PROXY = '127.0.0.1';
      const http = new HttpClient({ retries: 0 });
      expect((await http.getBytes('http://feeds.example.invalid/kev.json')).body.toString()).toBe('via proxy');
      expect((await http.getBytes(`${direct.base}/x`)).body.toString()).toBe('direct');
      await http.close();
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatch(/^GET http:\/\/feeds\.example\.invalid\/kev\.json vulnintel\/\d+\.\d+\.\d+$/);
    } finally {
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
      else process.env[k] = v;
      await proxy.close();
      await direct.close();
    }
  });
});

describe('rolling-window rate limiter', () => {
  it('lets `limit` requests through per window and makes the next one wait for the oldest to expire', async () => {
    let clock = 0;
    const waits: number[] = [];
    const limiter = new RollingWindowLimiter(5, 30_000, () => clock, async (ms) => {
      waits.push(ms);
      clock += ms;
    });
    const times: number[] = [];
    for (let i = 0; i < 12; i++) {
      const answered = await limiter.acquire();
      times.push(clock);
      answered(); // answered at once
      clock += 1000; // the next one is asked for a second later
    }
    // Never more than 5 starts inside any 30 s window.
    for (let i = 5; i < times.length; i++) expect(times[i]! - times[i - 5]!).toBeGreaterThanOrEqual(30_000);
    expect(times.slice(0, 6)).toEqual([0, 1000, 2000, 3000, 4000, 30_000]);
    expect(waits[0]).toBe(25_000);
  });

  // NVD counts a request when it arrives. Booked when it was let through, the sixth request left
  // exactly 30 s after the first did, and reached NVD 29.98 s after the first had (that one took
  // longer on its way): a 403. A request is booked when its answer arrives, which is later.
  it('books a request when its answer arrives, not when it is let through', async () => {
    let clock = 0;
    const limiter = new RollingWindowLimiter(5, 30_000, () => clock, async (ms) => void (clock += ms));
    const sent: number[] = [];
    for (let i = 0; i < 6; i++) {
      const answered = await limiter.acquire();
      sent.push(clock);
      clock += 700; // on the way there and back
      answered();
    }
    expect(sent.slice(0, 5)).toEqual([0, 700, 1400, 2100, 2800]);
    // The first answer arrived at 700: the sixth goes 30 s after that, not 30 s after 0.
    expect(sent[5]).toBe(30_700);
  });

  it('holds a slot while its request is unanswered: with every slot held, the next waits for an answer and then the window', async () => {
    let clock = 0;
    const limiter = new RollingWindowLimiter(1, 30_000, () => clock, async (ms) => void (clock += ms));
    const answered = await limiter.acquire();
    let through = false;
    const next = limiter.acquire().then((done) => {
      through = true;
      return done;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(through).toBe(false);
    clock = 5_000;
    answered();
    (await next)();
    expect(clock).toBe(35_000);
    const aborted = new AbortController();
    const held = await limiter.acquire(); // at 65 000, after the window of the second
    const waiting = limiter.acquire(aborted.signal);
    aborted.abort();
    await expect(waiting).rejects.toThrow();
    held();
  });
});
