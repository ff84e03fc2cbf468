/**
 * The app's own middleware, outermost first (see app.ts for the order):
 *   - `standardHeaders`: answers CORS preflights, and gives every response, errors included,
 *     the headers of every answer (CORS, nosniff: ANSWER_HEADERS), `X-Snapshot`, `Cache-Control`
 *     and an `ETag` (DESIGN §6);
 *   - `readOnly`: 405 METHOD_NOT_ALLOWED with `Allow` for anything but GET/HEAD/OPTIONS;
 *   - `retainSnapshot`: holds the served snapshot for the request, 503 NO_SNAPSHOT without one
 *     (on the JSON API with the response cache inside it).
 */
import type { MiddlewareHandler } from 'hono';
import type { SnapshotStore } from '../snapshot/store.ts';
import type { ApiEnv } from './context.ts';
import { ANSWER_HEADERS } from './cors.ts';
import { ALLOWED_METHODS, methodNotAllowed, noSnapshot } from './errors.ts';
import { CACHE_CONTROL, conditionalTag, defaultCacheControl, etagOf, ifNoneMatchHits } from './respond.ts';

/** Bodies never buffered to compute an ETag (streams set their own). */
const STREAMED_TYPES = /^(application\/x-ndjson|text\/event-stream)/;

/**
 * `allowOf` names the methods of paths that take more than the read API's GET and HEAD (the
 * /pulse subscription API); undefined for any other path.
 */
export function standardHeaders(store: SnapshotStore, allowOf: (path: string) => string | undefined = () => undefined): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    if (c.req.method === 'OPTIONS') {
      // Preflight: the API takes no credentials and reads no custom request header but the
      // conditional ones, so every origin may send GET/HEAD with any header it asks for (and
      // the path's own methods where it takes others).
      const allow = allowOf(c.req.path) ?? ALLOWED_METHODS;
      const headers = new Headers({
        ...ANSWER_HEADERS,
        'Access-Control-Allow-Methods': allow,
        'Access-Control-Max-Age': '86400',
        Allow: allow,
        'Cache-Control': CACHE_CONTROL.static,
        ETag: etagOf(''),
        'X-Snapshot': store.current?.buildId ?? 'none',
      });
      const asked = c.req.header('access-control-request-headers');
      if (asked) headers.set('Access-Control-Allow-Headers', asked);
      return new Response(null, { status: 204, headers });
    }
    await next();
    // sendBody wrote every header of this answer itself (see respond.ts): nothing to add.
    if (c.get('headersComplete') === true) return;
    let res = c.res;
    const headers = res.headers;
    if (!headers.has('ETag') && res.status !== 304 && !STREAMED_TYPES.test(headers.get('content-type') ?? '')) {
      // A response built without sendBody (e.g. c.json in a route module): hash its bytes.
      const bytes = new Uint8Array(await res.arrayBuffer());
      const etag = etagOf(bytes);
      const copy = new Headers(res.headers);
      copy.set('ETag', etag);
      if (res.status === 200 && ifNoneMatchHits(conditionalTag(c), etag)) {
        copy.delete('content-type');
        copy.delete('content-length');
        res = new Response(null, { status: 304, headers: copy });
      } else {
        // Said here, not left to Node's framing of the body: a HEAD answer (Hono drops the body
        // after this) must carry GET's Content-Length too (the Atom feed's had none).
        copy.set('Content-Length', String(bytes.byteLength));
        res = new Response(bytes, { status: res.status, headers: copy });
      }
      // Replace without Hono's header merge (which would put back the old Content-Length).
      c.res = undefined;
      c.res = res;
    }
    const out = c.res.headers;
    for (const [name, value] of Object.entries(ANSWER_HEADERS)) out.set(name, value);
    if (!out.has('Cache-Control')) {
      const status = c.res.status;
      out.set('Cache-Control', defaultCacheControl(status));
    }
    const snapshot = c.get('snapshot') as ApiEnv['Variables']['snapshot'] | undefined;
    out.set('X-Snapshot', snapshot?.buildId ?? store.current?.buildId ?? 'none');
  };
}

export const readOnly: MiddlewareHandler<ApiEnv> = async (c, next) => {
  const method = c.req.method;
  if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(method);
  await next();
};

/**
 * Holds the served snapshot for the request; `within`, when given, runs inside the hold in the
 * same middleware (the response cache on the JSON API: one layer of the chain fewer on every
 * request, the id lookup's included).
 */
export function retainSnapshot(store: SnapshotStore, within?: MiddlewareHandler<ApiEnv>): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const lease = store.acquire();
    if (!lease) throw noSnapshot(store.openFailure);
    c.set('snapshot', lease.snapshot);
    try {
      // A response `within` returns (a cached answer) is the middleware's: Hono sends it.
      return await (within ? within(c, next) : next());
    } finally {
      lease.release();
    }
  };
}
