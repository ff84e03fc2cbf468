/**
 * Network failures after the response headers: a connection reset or a stalled body is retried
 * like a failure before the headers, a large download resumes with `Range` where the server
 * allows it, and every final error names the URL. Local servers only.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, utimes, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fetchFile } from '../../cli/fetch/download.ts';
import { FetchError } from '../../cli/fetch/errors.ts';
import { ValidatorStore } from '../../cli/fetch/validators.ts';
import { startServer, tempRaw, testHttp, type Reply, type TestServer } from './helpers.ts';

const BIG = randomBytes(200_000);

/**
 * Serves `body` with byte ranges (If-Range on `etag`); the first `cuts` answers are cut after
 * `cutAt` bytes, `cutDelayMs` (300) after they were written.
 */
function rangeServer(opts: { body: () => Buffer; etag: () => string; ranges: boolean; cuts: number; cutAt: number; cutDelayMs?: number }) {
  const delay = opts.cutDelayMs ?? 300;
  let n = 0;
  return (req: { headers: Record<string, string | string[] | undefined> }): Reply => {
    const body = opts.body();
    const headers: Record<string, string> = { etag: opts.etag() };
    if (opts.ranges) headers['accept-ranges'] = 'bytes';
    const range = /^bytes=(\d+)-$/.exec(String(req.headers.range ?? ''));
    const cut = n++ < opts.cuts ? opts.cutAt : undefined;
    if (opts.ranges && range && req.headers['if-range'] === opts.etag()) {
      const from = Number(range[1]);
      const part = body.subarray(from);
      return { status: 206, headers: { ...headers, 'content-range': `bytes ${from}-${body.length - 1}/${body.length}` }, body: part, ...(cut !== undefined ? { cutAfter: cut, cutDelayMs: delay } : {}) };
    }
    return { headers, body, ...(cut !== undefined ? { cutAfter: cut, cutDelayMs: delay } : {}) };
  };
}

describe('network errors after the headers', () => {
  let raw: string;
  let cleanup: () => Promise<void>;
  let server: TestServer | undefined;
  beforeEach(async () => ({ raw, cleanup } = await tempRaw()));
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await cleanup();
  });

  async function download(route: Parameters<typeof startServer>[0], retries = 3) {
    server = await startServer(route);
    const { http, sleeps } = testHttp({ retries });
    const dest = join(raw, 'src', 'file.bin');
    const got = await fetchFile(http, {
      url: `${server.base}/file.bin`,
      dest,
      sourceDir: join(raw, 'src'),
      store: await ValidatorStore.load(join(raw, 'src')),
      verify: async () => ({ records: 1 }),
    });
    return { got, dest, sleeps };
  }

  it('resumes a cut download with Range and If-Range (the ETag), and the file is whole', async () => {
    const { got, dest } = await download(rangeServer({ body: () => BIG, etag: () => '"v1"', ranges: true, cuts: 2, cutAt: 50_000 }));
    expect(got.changed).toBe(true);
    expect((await readFile(dest)).equals(BIG)).toBe(true);
    const reqs = server!.requests;
    expect(reqs).toHaveLength(3);
    expect(reqs[0]!.headers.range).toBeUndefined();
    expect(reqs[1]!.headers).toMatchObject({ range: 'bytes=50000-', 'if-range': '"v1"' });
    // The second answer (a 206 from 50,000) was cut after 50,000 more bytes.
    expect(reqs[2]!.headers).toMatchObject({ range: 'bytes=100000-', 'if-range': '"v1"' });
    expect(got.bytes).toBe(BIG.length);
  });

  // The replayed object store cut a 9 KB asset 50 ms after its headers: the bytes were lost
  // whole while the temporary file was being prepared, and the retry asked from byte 0.
  it('keeps what a short body sent before it was cut right after its headers', async () => {
    const small = BIG.subarray(0, 9000);
    const { dest } = await download(rangeServer({ body: () => small, etag: () => '"v1"', ranges: true, cuts: 1, cutAt: 4000, cutDelayMs: 0 }));
    expect(server!.requests[1]!.headers.range).toBe('bytes=4000-');
    expect((await readFile(dest)).equals(small)).toBe(true);
  });

  // Each answer is cut after 30,000 more bytes: a download that progresses at every attempt.
  // Only attempts that made no progress count against the retries (here 1).
  it('goes on while each resumed attempt adds to the file, whatever the retries', async () => {
    const { got, dest, sleeps } = await download(rangeServer({ body: () => BIG, etag: () => '"v1"', ranges: true, cuts: 6, cutAt: 30_000 }), 1);
    expect(got.changed).toBe(true);
    expect((await readFile(dest)).equals(BIG)).toBe(true);
    expect(server!.requests).toHaveLength(7);
    expect(server!.requests[6]!.headers.range).toBe('bytes=180000-');
    // The backoff starts again from its first step (5 ms ± 25 %) after each attempt that progressed.
    expect(sleeps).toHaveLength(6);
    expect(sleeps.every((ms) => ms <= 7)).toBe(true);
  });

  it('keeps the bytes of a failed download for the next run, which resumes them with Range and If-Range', async () => {
    let broken = true;
    const serve = rangeServer({ body: () => BIG, etag: () => '"v1"', ranges: true, cuts: 1, cutAt: 80_000 });
    server = await startServer((req) => (broken && req.headers.range ? { status: 503, body: 'busy' } : serve(req)));
    const sourceDir = join(raw, 'src');
    const dest = join(sourceDir, 'file.bin');
    const get = async () =>
      fetchFile(testHttp({ retries: 1 }).http, { url: `${server!.base}/file.bin`, dest, sourceDir, store: await ValidatorStore.load(sourceDir), verify: async () => ({ records: 1 }) });
    // Run 1: 80,000 bytes, then the host answers 503 twice.
    await expect(get()).rejects.toThrow(/HTTP 503 \(busy\) after 3 attempts; the 80000 bytes received are kept to resume next run$/);
    expect(existsSync(dest)).toBe(false);
    expect((await readFile(join(sourceDir, '.file.bin.partial'))).equals(BIG.subarray(0, 80_000))).toBe(true);
    // Run 2 asks for the rest only.
    broken = false;
    server.requests.length = 0;
    const got = await get();
    expect(got.changed).toBe(true);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.headers).toMatchObject({ range: 'bytes=80000-', 'if-range': '"v1"' });
    expect((await readFile(dest)).equals(BIG)).toBe(true);
    expect(got.bytes).toBe(BIG.length);
    expect((await readdir(sourceDir)).sort()).toEqual(['_http.json', 'file.bin']);
  });

  it('a kept partial whose file changed meanwhile is replaced by the whole new file (If-Range no longer matches)', async () => {
    let version = 1;
    const v2 = randomBytes(90_000);
    const serve = rangeServer({ body: () => (version === 1 ? BIG : v2), etag: () => `"v${version}"`, ranges: true, cuts: 1, cutAt: 50_000 });
    server = await startServer((req) => (version === 1 && req.headers.range ? { status: 503 } : serve(req)));
    const sourceDir = join(raw, 'src');
    const dest = join(sourceDir, 'file.bin');
    const get = () => fetchFile(testHttp({ retries: 0 }).http, { url: `${server!.base}/file.bin`, dest, sourceDir, verify: async () => ({ records: 1 }) });
    await expect(get()).rejects.toThrow(/bytes received are kept/);
    version = 2;
    await get();
    expect(server.requests.at(-1)!.headers['if-range']).toBe('"v1"');
    expect((await readFile(dest)).equals(v2)).toBe(true);
    expect(await readdir(sourceDir)).toEqual(['file.bin']);
  });

  it('keeps nothing when the server cannot resume (no Accept-Ranges), and a failed verification keeps nothing', async () => {
    const serve = rangeServer({ body: () => BIG, etag: () => '"v1"', ranges: false, cuts: 9, cutAt: 50_000 });
    server = await startServer((req) => serve(req));
    const sourceDir = join(raw, 'src');
    const dest = join(sourceDir, 'file.bin');
    await expect(fetchFile(testHttp({ retries: 0 }).http, { url: `${server.base}/file.bin`, dest, sourceDir, verify: async () => ({ records: 1 }) })).rejects.toThrow(
      /download interrupted|other side closed/,
    );
    expect(await readdir(sourceDir)).toEqual([]);
    const whole = await startServer(() => ({ headers: { etag: '"v1"', 'accept-ranges': 'bytes' }, body: BIG }));
    try {
      await expect(
        fetchFile(testHttp().http, {
          url: `${whole.base}/file.bin`,
          dest,
          sourceDir,
          verify: async (_tmp, what) => {
            throw new FetchError(`${what}: not what was expected`);
          },
        }),
      ).rejects.toThrow(/not what was expected/);
      expect(await readdir(sourceDir)).toEqual([]);
    } finally {
      await whole.close();
    }
  });

  // RFC 9110 §15.5.17: a 416 says the range asked for is not in the file the server holds now.
  it('a 416 to a resumed request drops the bytes received and asks for the whole file, without Range', async () => {
    let n = 0;
    const unsatisfiable: Reply = { status: 416, headers: { 'content-range': `bytes */${BIG.length}` } };
    const { dest } = await download((req) =>
      req.headers.range ? unsatisfiable : { headers: { etag: '"v1"', 'accept-ranges': 'bytes' }, body: BIG, ...(n++ === 0 ? { cutAfter: 50_000, cutDelayMs: 300 } : {}) },
    );
    expect((await readFile(dest)).equals(BIG)).toBe(true);
    expect(server!.requests.map((r) => r.headers.range)).toEqual([undefined, 'bytes=50000-', undefined]);
  });

  it('a server that answers 416 again after starting over fails the download, naming the URL, and keeps nothing', async () => {
    await expect(
      download((req): Reply =>
        req.headers.range
          ? { status: 416, headers: { 'content-range': `bytes */${BIG.length}` } }
          : { headers: { etag: '"v1"', 'accept-ranges': 'bytes' }, body: BIG, cutAfter: 50_000, cutDelayMs: 300 },
      ),
    ).rejects.toThrow(/^GET http:\/\/127\.0\.0\.1:\d+\/file\.bin: HTTP 416 after 2 attempts$/);
    expect(server!.requests.map((r) => r.headers.range)).toEqual([undefined, 'bytes=50000-', undefined, 'bytes=50000-']);
    expect(await readdir(join(raw, 'src'))).toEqual([]);
  });

  it('drops the partial files of another destination untouched for a day', async () => {
    const sourceDir = join(raw, 'src');
    await mkdir(sourceDir, { recursive: true });
    const old = new Date(Date.now() - 2 * 86_400_000);
    for (const name of ['.2026-01-01_all.zip.partial', '.2026-01-01_all.zip.partial.json', '.fresh.zip.partial']) await writeFile(join(sourceDir, name), 'x');
    await utimes(join(sourceDir, '.2026-01-01_all.zip.partial'), old, old);
    await utimes(join(sourceDir, '.2026-01-01_all.zip.partial.json'), old, old);
    server = await startServer(() => ({ body: 'new' }));
    await fetchFile(testHttp().http, { url: `${server.base}/x`, dest: join(sourceDir, 'file.bin'), sourceDir, verify: async () => ({ records: 1 }) });
    expect((await readdir(sourceDir)).sort()).toEqual(['.fresh.zip.partial', 'file.bin']);
  });

  it('starts over when the file changed meanwhile (If-Range no longer matches: a 200 with the new file)', async () => {
    let version = 1;
    const v2 = randomBytes(120_000);
    const route = rangeServer({ body: () => (version === 1 ? BIG : v2), etag: () => `"v${version}"`, ranges: true, cuts: 1, cutAt: 50_000 });
    const { dest } = await download((req, url) => {
      const reply = route(req);
      version = 2; // changes right after the first answer
      void url;
      return reply;
    });
    expect(server!.requests[1]!.headers['if-range']).toBe('"v1"');
    expect((await readFile(dest)).equals(v2)).toBe(true);
  });

  // RFC 9110 does not require a server that takes Range to evaluate If-Range (some object stores
  // and mirrors do not): the file changed, it answers the resumed request with a 206 of the new
  // version, under the new ETag. Appended, the file was half one version, half the other.
  it('a 206 of another version (a server that ignores If-Range) is not appended: the file comes whole again', async () => {
    let version = 1;
    const v2 = randomBytes(BIG.length);
    const bodyOf = () => (version === 1 ? BIG : v2);
    const { dest } = await download((req): Reply => {
      const body = bodyOf();
      const headers = { etag: `"v${version}"`, 'accept-ranges': 'bytes' };
      const range = /^bytes=(\d+)-$/.exec(String(req.headers.range ?? ''));
      if (!range) {
        const first = version === 1;
        version = 2; // changes right after the first answer
        return { headers, body, ...(first ? { cutAfter: 50_000, cutDelayMs: 300 } : {}) };
      }
      const from = Number(range[1]);
      return { status: 206, headers: { ...headers, 'content-range': `bytes ${from}-${body.length - 1}/${body.length}` }, body: body.subarray(from) };
    });
    expect(server!.requests.map((r) => r.headers.range)).toEqual([undefined, 'bytes=50000-', undefined]);
    expect((await readFile(dest)).equals(v2)).toBe(true);
  });

  it('downloads again from the start when the server does not take ranges', async () => {
    const { dest } = await download(rangeServer({ body: () => BIG, etag: () => '"v1"', ranges: false, cuts: 1, cutAt: 50_000 }));
    expect(server!.requests).toHaveLength(2);
    expect(server!.requests[1]!.headers.range).toBeUndefined();
    expect((await readFile(dest)).equals(BIG)).toBe(true);
  });

  it('a body read whole (NVD pages, CSAF documents) is retried after a reset, and names the URL when retries are spent', async () => {
    let n = 0;
    server = await startServer(() => (n++ === 0 ? { body: '{"ok":true}', cutAfter: 4 } : { body: '{"ok":true}' }));
    const { http, sleeps } = testHttp();
    expect(await http.getJson(`${server.base}/page.json`, 'nvd page')).toEqual({ ok: true });
    expect(server.requests).toHaveLength(2);
    expect(sleeps).toHaveLength(1);

    const always = await startServer(() => ({ body: '{"ok":true}', cutAfter: 4 }));
    const failing = testHttp({ retries: 2 });
    await expect(failing.http.getBytes(`${always.base}/page.json`)).rejects.toThrow(
      /^GET http:\/\/127\.0\.0\.1:\d+\/page\.json: other side closed \(UND_ERR_SOCKET\) after 3 attempts$/,
    );
    expect(always.requests).toHaveLength(3);
    await always.close();
  });

  it('a body that stalls after the headers is retried once the body timeout passes', async () => {
    let n = 0;
    const stalling: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-length': '11' });
      if (n++ === 0) res.write('{"ok"'); // …and nothing more
      else res.end('{"ok":true}');
    });
    await new Promise<void>((r) => stalling.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(stalling.address() as AddressInfo).port}`;
    try {
      // No pace (minBodyBytes 0): what is tested here is the gap, not the pace (the next test).
      const { http } = testHttp({ timeoutMs: 200, minBodyBytes: 0 });
      expect(await http.getJson(`${base}/slow.json`, 'slow')).toEqual({ ok: true });
      expect(n).toBe(2);
      const never = testHttp({ timeoutMs: 200, retries: 0, minBodyBytes: 0 });
      n = 0;
      stalling.removeAllListeners('request');
      stalling.on('request', (_req, res) => {
        res.writeHead(200, { 'content-length': '11' });
        res.write('{"ok"');
      });
      await expect(never.http.getBytes(`${base}/slow.json`)).rejects.toThrow(/^GET http:\/\/127\.0\.0\.1:\d+\/slow\.json: .*UND_ERR_BODY_TIMEOUT/);
    } finally {
      stalling.closeAllConnections();
      await new Promise<void>((r) => stalling.close(() => r()));
    }
  });

  // One byte every 40 ms never leaves a gap of the body timeout (200 ms): without a pace the
  // download ran as long as the host liked (the whole fetch job hung on one source).
  it('a body that trickles fails its attempt after one timeout window, is retried, and the error names the URL', async () => {
    const trickling: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-length': '100000' });
      const t = setInterval(() => res.write('x'), 40);
      res.on('close', () => clearInterval(t));
    });
    await new Promise<void>((r) => trickling.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(trickling.address() as AddressInfo).port}`;
    try {
      const { http, sleeps } = testHttp({ timeoutMs: 200, retries: 1, minBodyBytes: 1000 });
      const started = performance.now();
      await expect(http.getBytes(`${base}/kev.json`)).rejects.toThrow(
        /^GET http:\/\/127\.0\.0\.1:\d+\/kev\.json: body too slow: \d bytes in 0\.2 s \(at least 1000 required\) \(BODY_TOO_SLOW\) after 2 attempts$/,
      );
      expect(performance.now() - started).toBeLessThan(2000);
      expect(sleeps).toHaveLength(1);
      // A streamed download too (its temporary file removed).
      const dest = join(raw, 'src', 'kev.json');
      await expect(
        fetchFile(http, { url: `${base}/kev.json`, dest, sourceDir: join(raw, 'src'), verify: async () => ({ records: 1 }) }),
      ).rejects.toThrow(/kev\.json: .*body too slow/);
      expect(await readdir(join(raw, 'src'))).toEqual([]);
    } finally {
      trickling.closeAllConnections();
      await new Promise<void>((r) => trickling.close(() => r()));
    }
  });

  it('a reader that holds the body back (a slow disk) is not taken for a slow host', async () => {
    const body = randomBytes(400_000);
    server = await startServer(() => ({ body }));
    const { http } = testHttp({ timeoutMs: 100, minBodyBytes: 50_000 });
    const got = await http.exchange(`${server.base}/big.bin`, {}, async (res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of res.body) {
        chunks.push(chunk as Buffer);
        await new Promise((r) => setTimeout(r, 60)); // each write takes 60 ms
      }
      return Buffer.concat(chunks);
    });
    expect(got.equals(body)).toBe(true);
  });
});
