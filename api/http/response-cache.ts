/**
 * A bounded cache of whole answers, one per snapshot (DESIGN §8.1). A snapshot never changes, so
 * the answer to the same GET on the same snapshot is the same bytes: a dashboard polling the
 * same filtered pages, or many clients asking the same first page, is served from memory. The
 * cache lives on the snapshot and goes with it at a swap, so it can never serve a newer
 * snapshot an older answer.
 *
 * What is kept: 200 answers with a body (not streams), whose Cache-Control says they come from
 * the snapshot alone (CACHE_CONTROL.snapshot; the summary's live poller health is not), that no
 * execution budget shaped (a route sets `uncacheable`, e.g. a relaxed phrase search), of at
 * most MAX_ENTRY_BYTES, up to MAX_CACHE_BYTES in all, least recently used out first. The key is
 * the path and the query with its parameters in name order (repeats keep their order), so
 * `?a=1&b=2` and `?b=2&a=1` are one entry. Headers that describe the caller (rate limits) or the
 * request (CORS, X-Snapshot) are added by the middleware outside this one, on every answer.
 */
import type { MiddlewareHandler } from 'hono';
import type { ApiEnv } from './context.ts';
import { ANSWER_HEADERS } from './cors.ts';
import { CACHE_CONTROL, sendBody } from './respond.ts';

export const MAX_ENTRY_BYTES = 256 * 1024;
export const MAX_CACHE_BYTES = 64 * 1024 * 1024;

interface CachedAnswer {
  body: Uint8Array;
  etag: string;
  contentType: string;
  /** The route's other headers (Cache-Control, …), replayed as they were. */
  headers: Record<string, string>;
}

export class ResponseCache {
  private readonly entries = new Map<string, CachedAnswer>();
  private bytes = 0;

  constructor(
    private readonly maxBytes = MAX_CACHE_BYTES,
    private readonly maxEntryBytes = MAX_ENTRY_BYTES,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get totalBytes(): number {
    return this.bytes;
  }

  get(key: string): CachedAnswer | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      // Map order is insertion order: moving a hit to the end keeps the least recent first.
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, answer: CachedAnswer): void {
    if (answer.body.byteLength > this.maxEntryBytes) return;
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.bytes -= old.body.byteLength + key.length;
    }
    this.entries.set(key, answer);
    this.bytes += answer.body.byteLength + key.length;
    for (const [oldestKey, oldest] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldestKey);
      this.bytes -= oldest.body.byteLength + oldestKey.length;
    }
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}

/**
 * Answers already stored as bytes in the serving files (a record, its related/enrichment/
 * references answers, a vendor advisory): sending them costs less than caching them would.
 */
const STORED_ANSWER = /^\/api\/v1\/public\/(cves\/CVE-|vendor-advisories\/[^/]+\/)/i;

/** The cache key of a request: its path and its query parameters in name order. */
export function cacheKey(url: string): string {
  const query = url.indexOf('?');
  if (query === -1) return new URL(url).pathname;
  const parsed = new URL(url);
  const params = [...parsed.searchParams];
  // Array.prototype.sort is stable: repeated parameters keep the order they were sent in.
  params.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return params.length === 0 ? parsed.pathname : `${parsed.pathname}?${new URLSearchParams(params).toString()}`;
}

/**
 * Response headers not replayed as they are: sendBody sets the first three from the entry, the
 * outer middleware the others on every answer.
 */
const NOT_REPLAYED = new Set(['etag', 'content-type', 'content-length', 'x-snapshot', ...Object.keys(ANSWER_HEADERS).map((name) => name.toLowerCase())]);

/** Serves GETs from the request's snapshot's cache, and fills it (mounted after retainSnapshot). */
export const cacheResponses: MiddlewareHandler<ApiEnv> = async (c, next) => {
  if (c.req.method !== 'GET' || STORED_ANSWER.test(c.req.path)) return next();
  const cache = c.get('snapshot').responses;
  const key = cacheKey(c.req.url);
  const hit = cache.get(key);
  // Sent as the route sent it, conditional answer included.
  if (hit) return sendBody(c, hit.body, { etag: hit.etag, contentType: hit.contentType, headers: hit.headers });
  await next();
  const res = c.res;
  const etag = res.headers.get('etag');
  const length = Number(res.headers.get('content-length') ?? Number.NaN);
  if (
    c.get('uncacheable') === true ||
    res.status !== 200 ||
    etag === null ||
    res.headers.get('cache-control') !== CACHE_CONTROL.snapshot ||
    !(length <= MAX_ENTRY_BYTES) ||
    !(res.headers.get('content-type') ?? '').startsWith('application/json')
  ) {
    return;
  }
  const body = new Uint8Array(await res.clone().arrayBuffer());
  const headers = Object.fromEntries([...res.headers].filter(([name]) => !NOT_REPLAYED.has(name.toLowerCase())));
  cache.set(key, { body, etag, contentType: res.headers.get('content-type')!, headers });
};
