/**
 * Sending a body with the headers every response carries (DESIGN §6): `ETag` (a hash of the
 * exact bytes, so an identical answer from a newer snapshot still revalidates), `Cache-Control`
 * by kind of answer, `Content-Length` (HEAD answers carry it too), and the conditional answer:
 * a request whose `If-None-Match` holds the ETag gets 304 without a body.
 */
import { hash } from 'node:crypto';
import type { Context } from 'hono';
import type { ApiEnv } from './context.ts';
import { ANSWER_HEADERS } from './cors.ts';

/** Cache lifetimes by kind of answer. Snapshots change at most every few hours. */
export const CACHE_CONTROL = {
  /** Answers read from the snapshot: revalidation is cheap thanks to the ETag. */
  snapshot: 'public, max-age=300',
  /** Answers with live parts (the summary's poller health). */
  live: 'public, max-age=15',
  /** The OpenAPI document and the docs page: change only with a new server version. */
  static: 'public, max-age=3600',
  /**
   * An answer the execution budget shaped (a relaxed phrase search, a total not counted): kept
   * by no cache unasked, as the replica's own cache keeps none (api/http/response-cache.ts), since
   * the same request may be answered whole next time; revalidated by its ETag instead.
   */
  shaped: 'no-cache',
  /** 4xx: the same request gets the same refusal, but a new snapshot may know a missing id. */
  clientError: 'public, max-age=60',
  /** 5xx and anything about this caller at this moment. */
  noStore: 'no-store',
} as const;

export const JSON_TYPE = 'application/json; charset=utf-8';

/** The Cache-Control of an answer that sets none: by its status. */
export function defaultCacheControl(status: number): string {
  // A 429 is about one caller at one moment: no shared cache may replay it to another.
  if (status === 429) return CACHE_CONTROL.noStore;
  return status < 400 ? CACHE_CONTROL.snapshot : status < 500 ? CACHE_CONTROL.clientError : CACHE_CONTROL.noStore;
}

/** ANSWER_HEADERS with names in lower case, sendBody's one spelling per header (made once, not per answer). */
const ANSWER_HEADERS_LOWER: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(ANSWER_HEADERS).map(([name, value]) => [name.toLowerCase(), value]));

/** Strong ETag of a body: its SHA-1, base64url (27 characters). */
export function etagOf(body: Uint8Array | string): string {
  return `"${hash('sha1', body, 'base64url')}"`;
}

/**
 * RFC 9110 §13.1.2: `If-None-Match` matches on `*` or on any listed tag, compared weakly
 * (a `W/` prefix on either side is ignored).
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === bare;
  });
}

export interface SendOptions {
  status?: number;
  contentType?: string;
  cacheControl?: string;
  /** Use this ETag instead of hashing the body (e.g. a streamed body). */
  etag?: string;
  headers?: Record<string, string>;
}

/**
 * What an answer the execution budget shaped (a relaxed phrase search, a total not counted, a
 * related basis `unknown`) is sent with: the same request may be answered whole next time, so
 * no cache keeps it unasked, the replica's own (`uncacheable`, api/http/response-cache.ts) nor a
 * browser's or a CDN's (CACHE_CONTROL.shaped, revalidated by its ETag). A whole answer: nothing.
 */
export function shapedAnswer(c: Context<ApiEnv>, shaped: boolean): Pick<SendOptions, 'cacheControl'> {
  if (!shaped) return {};
  c.set('uncacheable', true);
  return { cacheControl: CACHE_CONTROL.shaped };
}

/** An answer's status, body (null for a 304) and headers, all in lower case. */
export interface ComposedAnswer {
  status: number;
  body: Uint8Array | string | null;
  headers: Record<string, string>;
}

/**
 * The one rule for an answer's headers, used by sendBody and by the record's front door
 * (api/http/record-front-door.ts): ETag, Cache-Control, the route's own headers, then the
 * body's type and length, or a 304 without them when `If-None-Match` holds the ETag.
 */
export function composeAnswer(body: Uint8Array | string, ifNoneMatch: string | undefined, opts: SendOptions = {}): ComposedAnswer {
  const status = opts.status ?? 200;
  const etag = opts.etag ?? etagOf(body);
  // Names in lower case, as HTTP/2 and a Headers object write them: one spelling per header, so
  // a header given again (a cached answer's replayed Cache-Control) replaces it.
  const headers: Record<string, string> = {
    'cache-control': opts.cacheControl ?? defaultCacheControl(status),
    etag,
  };
  for (const name in opts.headers) headers[name.toLowerCase()] = opts.headers[name]!;
  if (status === 200 && ifNoneMatchHits(ifNoneMatch, etag)) return { status: 304, body: null, headers };
  headers['content-type'] = opts.contentType ?? JSON_TYPE;
  headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  return { status, body, headers };
}

/**
 * The headers standardHeaders would add to an answer read from snapshot `buildId` (ANSWER_HEADERS
 * and `X-Snapshot`), added in place: for answers that leave it nothing to do.
 */
export function completeHeaders(headers: Record<string, string>, buildId: string): Record<string, string> {
  Object.assign(headers, ANSWER_HEADERS_LOWER);
  headers['x-snapshot'] = buildId;
  return headers;
}

/**
 * `If-None-Match` of a GET or HEAD; none for any other method, whose answer is not a
 * representation to revalidate (RFC 9110 §13.2.1: such a request ignores the precondition).
 */
export function conditionalTag(c: Context): string | undefined {
  const method = c.req.method;
  return method === 'GET' || method === 'HEAD' ? c.req.header('if-none-match') : undefined;
}

/**
 * Whether a GET or HEAD carrying `If-Modified-Since` (and no `If-None-Match`, which takes
 * precedence: RFC 9110 §13.1.3) gets 304 for an answer last modified at `lastModifiedMs`: the
 * answer is no newer than the date asked, compared in whole seconds as HTTP dates carry them.
 * A date that does not parse is ignored, as the RFC says.
 */
export function notModifiedSince(c: Context, lastModifiedMs: number): boolean {
  const method = c.req.method;
  if ((method !== 'GET' && method !== 'HEAD') || c.req.header('if-none-match') !== undefined) return false;
  const since = Date.parse(c.req.header('if-modified-since') ?? '');
  return Number.isFinite(since) && Math.floor(lastModifiedMs / 1000) * 1000 <= since;
}

/** Sends bytes (or text) with ETag, Cache-Control and Content-Length; 304 when it matches (GET, HEAD). */
export function sendBody(c: Context, body: Uint8Array | string, opts: SendOptions = {}): Response {
  const answer = composeAnswer(body, conditionalTag(c), opts);
  return respond(c, answer);
}

/**
 * The response, with every header of a request that reads a snapshot written here as one plain
 * object, when it is served over a real connection: Hono's c.body turns more than one header
 * into a Headers object, and standardHeaders reading c.res.headers afterwards makes another,
 * each checking every name and value — a quarter of an id lookup's time. Such a response is
 * marked complete and standardHeaders leaves it alone. Anything set before it on the
 * connection (the rate limit's headers, see setAdmittedHeaders) is kept by the server; an
 * in-process request (app.request) goes through c.body, and standardHeaders adds the rest.
 */
function respond(c: Context, { status, body, headers }: ComposedAnswer): Response {
  const snapshot = c.get('snapshot') as { buildId: string } | undefined;
  const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
  if (snapshot === undefined || outgoing === undefined) {
    return body === null ? c.body(null, status as 304, headers) : c.body(body as Uint8Array<ArrayBuffer> | string, status as 200, headers);
  }
  c.set('headersComplete', true);
  return new Response(body as Uint8Array<ArrayBuffer> | string | null, { status, headers: completeHeaders(headers, snapshot.buildId) });
}

/** Serialises a value once and sends it (for bodies that are not precomputed bytes). */
export function sendJson(c: Context, value: unknown, opts: SendOptions = {}): Response {
  return sendBody(c, JSON.stringify(value), opts);
}

/**
 * For `app.openapi` handlers: the route's declared responses type its handler's return value,
 * but our bodies are bytes sent by sendBody (not `c.json`), so the handler returns this.
 */
export function asRouteResponse(res: Response): never {
  return res as never;
}
