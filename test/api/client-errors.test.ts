/**
 * Requests Node's HTTP parser refuses before the app sees them, sent over raw sockets (a client
 * library would refuse to send them): they get the API's JSON error with CORS headers, checked
 * against the served document's Error schema, and the server goes on serving.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOn, startSampleServer, type SampleServer } from './server-harness.ts';

let s: SampleServer;

beforeAll(async () => {
  s = await startSampleServer();
});

afterAll(async () => {
  await s?.server.close();
});

interface RawAnswer {
  status: number;
  headers: Headers;
  body: string;
}

/** Writes `request` as it is and reads the answer until the server closes the connection. */
function rawRequest(request: Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(s.server.port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => resolve(parseAnswer(Buffer.concat(chunks).toString('utf8'))));
  });
}

/** The answer read from `text` (status line, headers, body). */
function parseAnswer(text: string): RawAnswer {
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = new Headers();
  for (const line of lines) {
    const at = line.indexOf(':');
    headers.append(line.slice(0, at), line.slice(at + 1).trim());
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') };
}

/**
 * On one kept-alive connection: `first`, its whole answer read (by Content-Length), then
 * `second`; returns the first answer and what the server wrote after it until it closed.
 */
function rawAfterAnswer(first: Buffer, second: Buffer): Promise<{ first: RawAnswer; second: RawAnswer | null }> {
  return new Promise((resolve, reject) => {
    const socket = connect(s.server.port, '127.0.0.1', () => socket.write(first));
    let received = Buffer.alloc(0);
    let firstLength = -1;
    socket.on('data', (d: Buffer) => {
      received = Buffer.concat([received, d]);
      if (firstLength !== -1) return;
      const headEnd = received.indexOf('\r\n\r\n');
      if (headEnd === -1) return;
      const length = Number(/content-length: (\d+)/i.exec(received.subarray(0, headEnd).toString('latin1'))?.[1]);
      if (received.length >= headEnd + 4 + length) {
        firstLength = headEnd + 4 + length;
        socket.write(second);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const rest = received.subarray(Math.max(firstLength, 0)).toString('utf8');
      resolve({ first: parseAnswer(received.subarray(0, firstLength).toString('utf8')), second: rest === '' ? null : parseAnswer(rest) });
    });
  });
}

async function expectJsonError(answer: RawAnswer, status: number, code: string, path: string): Promise<void> {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(answer.headers.get('access-control-allow-origin')).toBe('*');
  expect(answer.headers.get('access-control-expose-headers')).toContain('X-Snapshot');
  expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
  expect(answer.headers.get('x-snapshot')).toBe(s.buildId);
  // Every answer carries an ETag, these too (they had none).
  expect(answer.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  expect(Number(answer.headers.get('content-length'))).toBe(Buffer.byteLength(answer.body));
  const body = JSON.parse(answer.body) as { code: string; message: string };
  expect(body.code).toBe(code);
  expect(body.message.length).toBeGreaterThan(20);
  const problems = (await s.validator()).check({ method: 'GET', url: `${s.base}${path}`, status, headers: answer.headers, body: answer.body });
  expect(problems).toEqual([]);
}

const CRLF = '\r\n';

describe('requests refused by the HTTP parser', () => {
  it('a request head over 16 KB: 431 REQUEST_HEADERS_TOO_LARGE as JSON, with CORS', async () => {
    const path = '/api/v1/public/cves';
    const answer = await rawRequest(Buffer.from(`GET ${path} HTTP/1.1${CRLF}Host: x${CRLF}X-Filler: ${'a'.repeat(17_000)}${CRLF}${CRLF}`));
    await expectJsonError(answer, 431, 'REQUEST_HEADERS_TOO_LARGE', path);
    expect(JSON.parse(answer.body).message).toContain('16384');
  });

  it('a URL over 16 KB: 431 too', async () => {
    const path = `/api/v1/public/cves?search=${'a'.repeat(17_000)}`;
    const answer = await rawRequest(Buffer.from(`GET ${path} HTTP/1.1${CRLF}Host: x${CRLF}${CRLF}`));
    await expectJsonError(answer, 431, 'REQUEST_HEADERS_TOO_LARGE', '/api/v1/public/cves');
  });

  it('raw non-ASCII bytes in the query: 400 MALFORMED_REQUEST as JSON, with CORS', async () => {
    const request = Buffer.concat([Buffer.from('GET /api/v1/public/cves?search='), Buffer.from('é', 'utf8'), Buffer.from(` HTTP/1.1${CRLF}Host: x${CRLF}${CRLF}`)]);
    const answer = await rawRequest(request);
    await expectJsonError(answer, 400, 'MALFORMED_REQUEST', '/api/v1/public/cves');
    expect(JSON.parse(answer.body).message).toMatch(/percent-encoded/);
  });

  it('raw non-ASCII bytes in the path, and a request line that is not HTTP: 400 as JSON', async () => {
    const inPath = Buffer.concat([Buffer.from('GET /api/v1/public/cves/'), Buffer.from([0xff, 0xfe]), Buffer.from(` HTTP/1.1${CRLF}Host: x${CRLF}${CRLF}`)]);
    await expectJsonError(await rawRequest(inPath), 400, 'MALFORMED_REQUEST', '/api/v1/public/cves/x');
    await expectJsonError(await rawRequest(Buffer.from(`NOT HTTP AT ALL${CRLF}${CRLF}`)), 400, 'MALFORMED_REQUEST', '/');
  });

  it('no Host header, or one that is no host: 400 MALFORMED_REQUEST as JSON (Node answered an empty 400)', async () => {
    // On an operation without parameters: the document declares the 400 there too.
    const path = '/api/v1/public/cves/summary';
    const none = await rawRequest(Buffer.from(`GET ${path} HTTP/1.1${CRLF}${CRLF}`));
    await expectJsonError(none, 400, 'MALFORMED_REQUEST', path);
    expect(JSON.parse(none.body).message).toMatch(/Host/);
    const bad = await rawRequest(Buffer.from(`GET ${path} HTTP/1.1${CRLF}Host: a b${CRLF}${CRLF}`));
    await expectJsonError(bad, 400, 'MALFORMED_REQUEST', path);
  });

  it('says what is wrong with the request: the path, the method or a header, not the Host or the URL\'s characters it holds right', async () => {
    const path = '/api/v1/public/cves/summary';
    const message = async (request: string) => {
      const answer = await rawRequest(Buffer.from(request));
      await expectJsonError(answer, 400, 'MALFORMED_REQUEST', path);
      return (JSON.parse(answer.body) as { message: string }).message;
    };
    // A backslash in the path (Host given).
    const backslash = await message(`GET /api/v1/public\\cves HTTP/1.1${CRLF}Host: x${CRLF}${CRLF}`);
    expect(backslash).toMatch(/backslash/i);
    expect(backslash).toMatch(/%5C/);
    expect(backslash).not.toMatch(/Host/);
    // A request target that is no path (Host given).
    const star = await message(`GET * HTTP/1.1${CRLF}Host: x${CRLF}${CRLF}`);
    expect(star).toMatch(/path starting with "\/"/);
    // A method that is none.
    const method = await message(`G@T ${path} HTTP/1.1${CRLF}Host: x${CRLF}${CRLF}`);
    expect(method).toMatch(/method/i);
    expect(method).not.toMatch(/percent-encoded/);
    // A header line that does not end in CR LF, a header value holding a control character.
    for (const request of [`GET ${path} HTTP/1.1${CRLF}Host: x\nAccept: */*${CRLF}${CRLF}`, `GET ${path} HTTP/1.1${CRLF}Host: x${CRLF}X-A: a\x01b${CRLF}${CRLF}`]) {
      const header = await message(request);
      expect(header).toMatch(/header/i);
      expect(header).not.toMatch(/URL/);
    }
  });

  it('two Host headers: 400 MALFORMED_REQUEST as JSON (RFC 9112 §3.2; Node answered with the first)', async () => {
    const path = '/api/v1/public/cves/summary';
    const twice = await rawRequest(Buffer.from(`GET ${path} HTTP/1.1${CRLF}Host: x${CRLF}host: y${CRLF}${CRLF}`));
    await expectJsonError(twice, 400, 'MALFORMED_REQUEST', path);
    expect(JSON.parse(twice.body).message).toMatch(/more than one Host/);
  });

  it('on a connection that already had an answer (keep-alive, as every client library uses): the same JSON error, not a dropped connection', async () => {
    const path = '/api/v1/public/cves';
    const good = Buffer.from(`GET ${path}?limit=1 HTTP/1.1${CRLF}Host: x${CRLF}${CRLF}`);
    const long = await rawAfterAnswer(good, Buffer.from(`GET ${path}?search=${'a'.repeat(20_000)} HTTP/1.1${CRLF}Host: x${CRLF}${CRLF}`));
    expect(long.first.status).toBe(200);
    expect(long.second).not.toBeNull();
    await expectJsonError(long.second!, 431, 'REQUEST_HEADERS_TOO_LARGE', path);
    const malformed = await rawAfterAnswer(good, Buffer.from(`NOT HTTP AT ALL${CRLF}${CRLF}`));
    expect(malformed.second).not.toBeNull();
    await expectJsonError(malformed.second!, 400, 'MALFORMED_REQUEST', '/');
  });

  it('an expectation the server cannot meet (Expect: bogus) is ignored: the answer, not a bare 417', async () => {
    const path = '/api/v1/public/cves/summary';
    const answer = await rawRequest(Buffer.from(`GET ${path} HTTP/1.1${CRLF}Host: x${CRLF}Expect: bogus${CRLF}Connection: close${CRLF}${CRLF}`));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(answer.headers.get('x-snapshot')).toBe(s.buildId);
    expect(JSON.parse(answer.body)).toHaveProperty('total');
  });

  it('HTTP/1.0 without Host (optional there; health checks send none): answered, not refused', async () => {
    const answer = await rawRequest(Buffer.from(`GET /api/v1/health HTTP/1.0${CRLF}${CRLF}`));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 'ok' });
  });

  it('keeps serving afterwards', async () => {
    const res = await s.get('/api/v1/public/cves/CVE-2024-3400');
    expect(res.status).toBe(200);
  });
});

describe('a request that arrives too slowly', () => {
  it('gets the JSON 408 once its time is up (a request trickled a line at a time held a connection for minutes)', async () => {
    const slow = await startOn(s.dataDir, s.buildId, { requestTimeoutMs: 1_500 });
    try {
      const started = performance.now();
      const answer = await new Promise<RawAnswer>((resolve, reject) => {
        const socket = connect(slow.server.port, '127.0.0.1', () => {
          socket.write(`GET /api/v1/public/cves HTTP/1.1${CRLF}Host: x${CRLF}`);
        });
        // A header line at a time, never the blank line that ends the head.
        let n = 0;
        const drip = setInterval(() => socket.writable && socket.write(`X-Drip-${n++}: 1${CRLF}`), 200);
        const chunks: Buffer[] = [];
        socket.on('data', (d: Buffer) => chunks.push(d));
        socket.on('error', reject);
        socket.on('close', () => {
          clearInterval(drip);
          resolve(parseAnswer(Buffer.concat(chunks).toString('utf8')));
        });
      });
      const seconds = (performance.now() - started) / 1000;
      expect(answer.status).toBe(408);
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'REQUEST_TIMEOUT' });
      // Cut at its time, not after Node's 300 s: the drip never stopped on its own.
      expect(seconds).toBeLessThan(10);
    } finally {
      await slow.server.close();
    }
  });
});

describe('escapes in the path of a /pulse page asked with a trailing slash', () => {
  it('are kept in the redirect: an escaped CR LF is no 500, a %5C no backslash', async () => {
    const redirect = async (path: string) => {
      const res = await fetch(`${s.base}${path}`, { redirect: 'manual' });
      return { status: res.status, location: res.headers.get('location'), cookie: res.headers.get('set-cookie') };
    };
    // The decoded path went into Location: Node refused to write CR LF in a header (a 500).
    expect(await redirect('/pulse/%0d%0aSet-Cookie:%20a=1/?x=1')).toEqual({ status: 301, location: '/pulse/%0d%0aSet-Cookie:%20a=1?x=1', cookie: null });
    expect(await redirect('/pulse/%5C%5Cexample.org/')).toEqual({ status: 301, location: '/pulse/%5C%5Cexample.org', cookie: null });
    // What was not escaped is sent as before.
    expect(await redirect('/pulse/cves/?severity=HIGH')).toEqual({ status: 301, location: '/pulse/cves?severity=HIGH', cookie: null });
  });

  it('a long run of slashes inside the path costs no more than a short one (it took a third of a second)', async () => {
    const path = `/pulse/${'/'.repeat(15_000)}x/`;
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const res = await fetch(`${s.base}${path}`, { redirect: 'manual' });
      times.push(performance.now() - started);
      expect(res.status).toBe(301);
      expect(res.headers.get('location')).toBe(path.slice(0, -1));
    }
    expect(Math.min(...times)).toBeLessThan(100);
  });
});
