/**
 * The record's front door (api/http/record-front-door.ts): a canonical GET of a record in the
 * served snapshot is answered before Hono, with the answer the route gives; anything else goes
 * to Hono. The route's own answer over a real connection is reached with a lower-case id,
 * which the front door leaves to Hono and the route canonicalises.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFrontDoor, type RequestHead } from '../../api/http/record-front-door.ts';
import { defaultRateLimitConfig } from '../../api/ratelimit/index.ts';
import type { SnapshotStore } from '../../api/snapshot/store.ts';
import { startSampleServer, type SampleServer } from './server-harness.ts';

const ID = 'CVE-2024-3400';
const PATH = `/api/v1/public/cves/${ID}`;
const ROUTE_PATH = `/api/v1/public/cves/${ID.toLowerCase()}`;
/** Headers of the connection, not of the answer. */
const CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive']);

function answerHeaders(res: Response): [string, string][] {
  return [...res.headers].filter(([name]) => !CONNECTION_HEADERS.has(name));
}

const head = (url: string, method = 'GET', headers: Record<string, string> = {}): RequestHead => ({ method, url, headers }) as RequestHead;

let s: SampleServer;
beforeAll(async () => {
  s = await startSampleServer();
});
afterAll(() => s.server.close());

describe('on a server without a rate limiter', () => {
  it('answers a record with the bytes and every header of the route', async () => {
    const door = await s.get(PATH);
    const route = await s.get(ROUTE_PATH);
    expect(door.status).toBe(200);
    expect(route.status).toBe(200);
    const body = await door.text();
    expect(body).toBe(await route.text());
    expect(JSON.parse(body).cve_id).toBe(ID);
    expect(answerHeaders(door)).toEqual(answerHeaders(route));
    expect(door.headers.get('x-snapshot')).toBe(s.buildId);
    expect(door.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
  });

  it('answers If-None-Match with the route’s 304', async () => {
    const etag = (await s.get(PATH)).headers.get('etag')!;
    for (const ask of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const door = await s.get(PATH, { headers: { 'If-None-Match': ask } });
      const route = await s.get(ROUTE_PATH, { headers: { 'If-None-Match': ask } });
      expect(door.status, ask).toBe(304);
      expect(await door.text()).toBe('');
      expect(answerHeaders(door)).toEqual(answerHeaders(route));
      expect(door.headers.get('content-type')).toBeNull();
    }
    const stale = await s.get(PATH, { headers: { 'If-None-Match': '"stale"' } });
    expect(stale.status).toBe(200);
  });

  it('leaves errors to the route: an unknown id is 404, a malformed one 400 naming id', async () => {
    const missing = await s.get('/api/v1/public/cves/CVE-2099-99999');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { code: string }).code).toBe('NOT_FOUND');
    const malformed = await s.get('/api/v1/public/cves/CVE-24-1');
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { message: string }).message).toMatch(/^id: /);
  });

  it('holds the snapshot only while it reads', async () => {
    const snapshot = s.server.store.current!;
    // The snapshot's aggregates warm in the background when it opens, holding it meanwhile.
    await expect.poll(() => snapshot.inUse, { timeout: 20_000 }).toBe(0);
    await Promise.all(Array.from({ length: 20 }, async () => (await s.get(PATH)).arrayBuffer()));
    expect(snapshot.inUse).toBe(0);
  });
});

describe('what the front door leaves to Hono', () => {
  const door = () => recordFrontDoor(s.server.store);

  it('answers only a canonical GET of a record the snapshot has', () => {
    expect(door()(head(PATH))?.status).toBe(200);
    for (const [url, method] of [
      [PATH, 'HEAD'],
      [PATH, 'OPTIONS'],
      [`${PATH}?pretty=1`, 'GET'],
      [`${PATH}/`, 'GET'],
      [ROUTE_PATH, 'GET'],
      [PATH.replace('CVE-', 'CVE%2D'), 'GET'],
      ['/api/v1/public/cves/CVE-2099-99999', 'GET'],
      [`/api/v1/public/cves/${ID}/related`, 'GET'],
      [`//api/v1/public/cves/${ID}`, 'GET'],
      [`http://localhost${PATH}`, 'GET'],
    ] as const) {
      expect(door()(head(url, method)), `${method} ${url}`).toBeUndefined();
    }
  });

  it('leaves it to Hono without a snapshot, and when the read fails, releasing the lease', () => {
    expect(recordFrontDoor({ acquire: () => null } as unknown as SnapshotStore)(head(PATH))).toBeUndefined();
    let released = 0;
    const failing = {
      acquire: () => ({
        snapshot: {
          buildId: 'x',
          records: {
            docOf: () => 0,
            etagOf: () => '"e"',
            bytes: () => {
              throw new Error('EIO');
            },
          },
        },
        release: () => released++,
      }),
    } as unknown as SnapshotStore;
    expect(recordFrontDoor(failing)(head(PATH))).toBeUndefined();
    expect(released).toBe(1);
  });
});

describe('on a server with a rate limiter', () => {
  let limited: SampleServer;
  beforeAll(async () => {
    limited = await startSampleServer({ rateLimit: defaultRateLimitConfig() });
  });
  afterAll(() => limited.server.close());

  it('goes through the limiter: the record carries the rate limit headers', async () => {
    const res = await limited.get(PATH);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).not.toBeNull();
    expect(res.headers.get('x-ratelimit-remaining')).not.toBeNull();
  });
});
