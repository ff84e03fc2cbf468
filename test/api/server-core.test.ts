/**
 * The server core against a real server on the sample snapshot (DESIGN §6): methods, CORS on
 * every answer, the standard headers, ETag/304, HEAD, JSON errors, 500 without a stack, the
 * OpenAPI document and docs page, and no 500 for any query string.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSampleServer, type SampleServer } from './server-harness.ts';

let s: SampleServer;

beforeAll(async () => {
  // Registered before the first request (Hono builds its router on the first match).
  s = await startSampleServer({}, (server) => {
    server.app.get('/api/v1/public/test-boom', () => {
      throw new Error('secret detail that must not reach the client');
    });
  });
});

afterAll(async () => {
  await s?.server.close();
});

const PATHS = [
  '/api/v1/public/cves',
  '/api/v1/public/cves?limit=0',
  '/api/v1/public/cves/CVE-2024-3400',
  '/api/v1/public/cves/CVE-1900-0000',
  '/api/v1/public/cves/summary',
  '/api/v1/public/cves/trends',
  '/api/v1/public/cves/export.ndjson?year=2024',
  '/api/v1/public/cves/match?vendor=linux',
  '/api/v1/public/nothing-here',
  '/api/v1/openapi.json',
  '/api/v1/docs',
  '/pulse',
  '/pulse/cves/CVE-2024-3400',
  '/pulse/assets/pulse.css',
];

describe('methods', () => {
  for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
    it(`${method} is 405 METHOD_NOT_ALLOWED with Allow and CORS`, async () => {
      const res = await s.get('/api/v1/public/cves', { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const body = (await res.json()) as { code: string };
      expect(body.code).toBe('METHOD_NOT_ALLOWED');
    });
  }

  it('the Atom feed and the event stream (read-only, outside /api) answer any other method with 405 and Allow, not 404 "no endpoint"', async () => {
    for (const path of ['/pulse/feeds/changes.atom', '/pulse/stream']) {
      const options = await s.get(path, { method: 'OPTIONS' });
      expect(options.headers.get('allow'), path).toBe('GET, HEAD, OPTIONS');
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
        const res = await s.get(path, { method });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.get('allow'), `${method} ${path}`).toBe('GET, HEAD, OPTIONS');
        expect(((await res.json()) as { code: string }).code).toBe('METHOD_NOT_ALLOWED');
      }
    }
    // A path that does not exist there is still a 404, whatever the method.
    expect((await s.get('/pulse/feeds/nothing.atom', { method: 'POST' })).status).toBe(404);
  });

  it('OPTIONS answers the CORS preflight', async () => {
    const res = await s.get('/api/v1/public/cves/CVE-2024-3400', {
      method: 'OPTIONS',
      headers: { Origin: 'https://example.org', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'if-none-match' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toContain('GET');
    expect(res.headers.get('access-control-allow-headers')).toBe('if-none-match');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-snapshot')).toBe(s.buildId);
  });

  it('HEAD carries the headers and Content-Length of GET without a body', async () => {
    const get = await s.get('/api/v1/public/cves/CVE-2024-3400');
    const bytes = (await get.arrayBuffer()).byteLength;
    const head = await s.get('/api/v1/public/cves/CVE-2024-3400', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(bytes));
    expect(head.headers.get('etag')).toBe(get.headers.get('etag'));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });
});

describe('standard headers on every response', () => {
  it.each(PATHS)('%s carries CORS, nosniff, X-Snapshot, ETag and Cache-Control, asked once and again (from the response cache)', async (path) => {
    for (const ask of ['first', 'again']) {
      const res = await s.get(path);
      await res.arrayBuffer();
      expect(res.headers.get('access-control-allow-origin'), ask).toBe('*');
      expect(res.headers.get('access-control-expose-headers'), ask).toContain('X-Snapshot');
      // Exactly one value: a replayed answer must not carry the header twice.
      expect(res.headers.get('x-content-type-options'), ask).toBe('nosniff');
      expect(res.headers.get('x-snapshot'), ask).toBe(s.buildId);
      expect(res.headers.get('etag'), ask).toMatch(/^(W\/)?"[^"]+"$/);
      expect(res.headers.get('cache-control'), ask).toMatch(/max-age|no-store/);
    }
  });

  it('errors are JSON with a code, CORS and nosniff (a message quotes what was sent): 400, 404 and unknown paths', async () => {
    for (const [path, status, code] of [
      ['/api/v1/public/cves?limit=abc', 400, 'INVALID_PARAMETER'],
      ['/api/v1/public/cves/CVE-1900-0000', 404, 'NOT_FOUND'],
      ['/api/v1/public/nothing-here', 404, 'NOT_FOUND'],
      ['/elsewhere', 404, 'NOT_FOUND'],
    ] as const) {
      const res = await s.get(path);
      expect(res.status, path).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const body = (await res.json()) as { code: string; message: string };
      expect(body.code).toBe(code);
      expect(body.message.length).toBeGreaterThan(0);
    }
  });

  it('an unexpected failure is 500 INTERNAL with no stack or detail', async () => {
    const res = await s.get('/api/v1/public/test-boom');
    expect(res.status).toBe(500);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const text = await res.text();
    expect(JSON.parse(text).code).toBe('INTERNAL');
    expect(text).not.toContain('secret detail');
    expect(text).not.toMatch(/at .*\.ts:\d+/);
  });
});

describe('conditional requests', () => {
  it.each([
    '/api/v1/public/cves/CVE-2024-3400',
    '/api/v1/public/cves?limit=5',
    '/api/v1/public/cves/summary',
    '/api/v1/public/cves/trends',
    '/api/v1/openapi.json',
  ])('%s: If-None-Match with the ETag gets 304 without a body', async (path) => {
    const first = await s.get(path);
    await first.arrayBuffer();
    const etag = first.headers.get('etag')!;
    for (const tag of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await s.get(path, { headers: { 'If-None-Match': tag } });
      expect(res.status, tag).toBe(304);
      expect(res.headers.get('etag')).toBe(etag);
      expect(res.headers.get('x-snapshot')).toBe(s.buildId);
      expect((await res.arrayBuffer()).byteLength).toBe(0);
    }
    const other = await s.get(path, { headers: { 'If-None-Match': '"not-it"' } });
    expect(other.status).toBe(200);
    await other.arrayBuffer();
  });

  it('the same answer has the same ETag, a different one another', async () => {
    const a = await s.get('/api/v1/public/cves?limit=3');
    const b = await s.get('/api/v1/public/cves?limit=3');
    const c = await s.get('/api/v1/public/cves?limit=4');
    await Promise.all([a.arrayBuffer(), b.arrayBuffer(), c.arrayBuffer()]);
    expect(a.headers.get('etag')).toBe(b.headers.get('etag'));
    expect(a.headers.get('etag')).not.toBe(c.headers.get('etag'));
  });
});

describe('OpenAPI', () => {
  it('describes every /cves endpoint with the parameters that validate it', async () => {
    const { status, body } = await s.json<{ openapi: string; paths: Record<string, { get: { parameters?: { name: string; in: string; schema: Record<string, unknown> }[] } }> }>(
      '/api/v1/openapi.json',
    );
    expect(status).toBe(200);
    expect(body.openapi).toBe('3.1.0');
    for (const path of ['', '/summary', '/trends', '/export.ndjson', '/match', '/{id}']) {
      expect(body.paths, path).toHaveProperty([`/api/v1/public/cves${path}`, 'get']);
    }
    const params = body.paths['/api/v1/public/cves']!.get.parameters!;
    const names = params.map((p) => p.name);
    for (const name of ['limit', 'offset', 'search', 'severity', 'severity_basis', 'min_cvss', 'kev_only', 'year', 'sort', 'skip_count', 'reverse', 'before_published', 'before_cve_id', 'since', 'until', 'status', 'vendor']) {
      expect(names).toContain(name);
    }
    const limit = params.find((p) => p.name === 'limit')!;
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 200, default: 50 });
    const id = body.paths['/api/v1/public/cves/{id}']!.get.parameters!.find((p) => p.name === 'id')!;
    expect(id.in).toBe('path');
  });

  it('renders the docs page offline: HTML embedding the document, nothing loaded from elsewhere', async () => {
    const res = await s.get('/api/v1/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('<script type="application/json" id="openapi">');
    expect(html).toContain('/api/v1/public/cves/export.ndjson');
    expect(html).not.toMatch(/<script[^>]+src=/);
    expect(html).not.toMatch(/<link[^>]+href=/);
    expect(html).not.toMatch(/(src|href)="https?:/);
  });
});

describe('no 500 on any input', () => {
  const PARAMS = ['limit', 'offset', 'search', 'severity', 'severity_basis', 'min_cvss', 'kev_only', 'year', 'sort', 'skip_count', 'reverse', 'before_published', 'before_cve_id', 'since', 'until', 'status', 'vendor', 'product', 'unknown'];
  const VALUES = ['', '0', '1', '-1', '200', '201', '1e3', '9.9', '10', 'NaN', 'true', 'false', 'HIGH,critical', 'none', ',', 'svc', 'epss', 'all', 'rejected', '2024-01-01', '2024-02-30', '2024-04-12T08:15:06.230Z', '2024-04-12T08:15:06+02:00', 'CVE-2024-3400', 'cve-2024-3400', '"use after', 'use-after-free', '%', '%00', '%FF', "'; DROP TABLE cves; --", '\u0000', '🙂', 'x'.repeat(600), '99999999999999999999'];
  const PATHS_FUZZ = ['/api/v1/public/cves', '/api/v1/public/cves/match', '/api/v1/public/cves/export.ndjson', '/api/v1/public/cves/summary'];

  function random<T>(items: readonly T[], rnd: () => number): T {
    return items[Math.floor(rnd() * items.length)]!;
  }

  it('answers 300 random query strings with 200, 400 or 404 and a JSON error code', async () => {
    let seed = 42;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const statuses = new Map<number, number>();
    for (let i = 0; i < 300; i++) {
      const parts: string[] = [];
      const n = 1 + Math.floor(rnd() * 4);
      for (let k = 0; k < n; k++) {
        const raw = random(VALUES, rnd);
        // Some values go raw (possibly malformed percent-encoding), most encoded.
        parts.push(`${random(PARAMS, rnd)}=${rnd() < 0.2 ? raw : encodeURIComponent(raw)}`);
      }
      const path = rnd() < 0.15 ? `/api/v1/public/cves/${encodeURIComponent(random(VALUES, rnd))}` : random(PATHS_FUZZ, rnd);
      const url = `${path}?${parts.join('&')}`;
      const res = await s.get(url);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      expect([200, 400, 404], url).toContain(res.status);
      const text = await res.text();
      if (res.status !== 200) {
        const body = JSON.parse(text) as { code: string; parameter?: string };
        expect(['INVALID_PARAMETER', 'VENDOR_FILTER_NOT_ALLOWED', 'REVERSE_NOT_ALLOWED', 'NOT_FOUND'], url).toContain(body.code);
      }
    }
    // The corpus of inputs must exercise both outcomes, or the test proves nothing.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(20);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(20);
  });
});

describe('a path parameter that is not UTF-8 text once percent-decoded', () => {
  it('is a 400 naming it (it was looked up as the raw characters: a 200 for a package named "%C0%AF"); well-formed escapes are text', async () => {
    for (const [url, parameter] of [
      ['/api/v1/public/packages/PyPI/%C0%AF', 'name'],
      ['/api/v1/public/packages/PyPI/mlflow%FF?version=1.0', 'name'],
      ['/api/v1/public/vendor-advisories/redhat/%FF', 'advisory_id'],
      // The UTF-8 bytes of a lone surrogate (U+D800) are no UTF-8 text either.
      ['/api/v1/public/vendor-advisories/redhat/RHSA-2026%ED%A0%80', 'advisory_id'],
      ['/api/v1/public/cves/%FF/related', 'id'],
    ] as const) {
      const res = await s.get(url);
      const body = (await res.json()) as { code: string; parameter: string; message: string };
      expect([url, res.status, body.code, body.parameter]).toEqual([url, 400, 'INVALID_PARAMETER', parameter]);
      expect(body.message).toContain('UTF-8');
    }
    // No route takes a parameter there: the unknown path it is.
    expect((await s.get('/api/v1/%FF')).status).toBe(404);
    for (const url of ['/api/v1/public/vendor-advisories/redhat/RHSA-2026%3A9102', '/api/v1/public/packages/npm/%40babel%2Fcore', '/api/v1/public/packages/PyPI/caf%C3%A9']) {
      expect([url, (await s.get(url)).status]).toEqual([url, 200]);
    }
  });
});

describe('a query that is not UTF-8 text once percent-decoded', () => {
  it('is a 400 naming the parameter on the API, the suggestions and the pages; a % that escapes nothing stays itself', async () => {
    for (const [url, parameter] of [
      ['/api/v1/public/cves?search=%FF', 'search'],
      ['/api/v1/public/cves?limit=5&search=caf%C3%A9%FF', 'search'],
      // The UTF-8 bytes of a lone surrogate (U+D800) are no UTF-8 text either.
      ['/api/v1/public/cves?search=%ED%A0%80', 'search'],
      ['/api/v1/public/changes?vendor=%C3', 'vendor'],
      ['/api/v1/public/cves?%FF=1', '%FF'],
      ['/pulse/suggest?field=vendor&q=%FF', 'q'],
    ] as const) {
      const res = await s.get(url);
      const body = (await res.json()) as { code: string; parameter: string; message: string };
      expect([url, res.status, body.code, body.parameter]).toEqual([url, 400, 'INVALID_PARAMETER', parameter]);
      expect(body.message).toContain('UTF-8');
    }
    const page = await s.get('/pulse/cves?search=%FF');
    expect(page.status).toBe(400);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('search: not UTF-8 text');
    // Well-formed escapes, a "+" space and a bare "%" are text.
    for (const url of ['/api/v1/public/cves?search=caf%C3%A9', '/api/v1/public/cves?search=linux+kernel', '/api/v1/public/cves?search=100%25', '/api/v1/public/cves?search=100%', '/api/v1/public/cves?search=%F0%9F%99%82x']) {
      expect([url, (await s.get(url)).status]).toEqual([url, 200]);
    }
  });
});
