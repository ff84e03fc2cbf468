/**
 * What callers see (contract §7 and §8.4, DESIGN §6–7): the 429 refusals, and the per-second
 * `X-RateLimit-*` headers on admitted responses.
 */
import type { Context } from 'hono';

/** Headers a browser must be allowed to read; the server's CORS `exposeHeaders` should list them. */
export const RATE_LIMIT_EXPOSED_HEADERS: readonly string[] = [
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-RateLimit-Window',
];

/** Which limit refused: the per-minute ceiling, the per-second sustained limit, or the burst cap. */
export type RefusalScope = 'minute' | 'second' | 'burst';

export interface Refusal {
  scope: RefusalScope;
  /** The number that was exceeded (the path's per-minute ceiling, tier's per-second limit, burst cap). */
  limit: number;
  /** Whole seconds until the window that refused ends (at least 1). */
  retryAfter: number;
  /** Header form of the window length: "60s" or "1s". */
  window: string;
}

/** Whole seconds from `now` until `resetAt`, rounded up, at least 1 (Retry-After is an integer). */
export function secondsUntil(resetAt: number, now: number): number {
  return Math.max(1, Math.ceil((resetAt - now) / 1000));
}

export function windowLabel(ms: number): string {
  return `${ms / 1000}s`;
}

const MESSAGES: Record<RefusalScope, (r: Refusal) => string> = {
  minute: (r) =>
    `Rate limit exceeded: more than ${r.limit} requests in this ${r.window} window for this path. Retry after ${r.retryAfter} s.`,
  second: (r) => `Rate limit exceeded: more than ${r.limit} requests per second for this path. Retry after ${r.retryAfter} s.`,
  burst: (r) => `Rate limit exceeded: burst cap of ${r.limit} requests per second reached. Retry after ${r.retryAfter} s.`,
};

/**
 * The 429. Headers set earlier on the context (the server's CORS middleware, mounted before this
 * one) are kept by Hono; Access-Control-Allow-Origin is added only if nothing set it, so a 429
 * is readable from a browser whatever the mount order (contract §1.5: CORS everywhere), and
 * nosniff is always set.
 */
export function refusalResponse(c: Context, refusal: Refusal): Response {
  const retryAfter = String(refusal.retryAfter);
  c.header('Retry-After', retryAfter);
  c.header('X-RateLimit-Limit', String(refusal.limit));
  c.header('X-RateLimit-Remaining', '0');
  c.header('X-RateLimit-Reset', retryAfter);
  c.header('X-RateLimit-Window', refusal.window);
  // A refusal is about this caller at this moment: no shared cache may replay it to others.
  c.header('Cache-Control', 'no-store');
  if (!c.res.headers.has('Access-Control-Allow-Origin')) {
    c.header('Access-Control-Allow-Origin', '*');
    c.header('Access-Control-Expose-Headers', RATE_LIMIT_EXPOSED_HEADERS.join(', '));
  }
  // The body quotes nothing of the caller's, but every answer of the service carries it
  // (api/http/cors.ts), the limiter mounted on its own included.
  c.header('X-Content-Type-Options', 'nosniff');
  return c.json(
    {
      code: 'RATE_LIMIT_EXCEEDED',
      message: MESSAGES[refusal.scope](refusal),
      retry_after: refusal.retryAfter,
      limit: refusal.limit,
      window: refusal.window,
      scope: refusal.scope,
    },
    429,
  );
}

/**
 * Per-second headers on an admitted response (contract §8.4: the per-minute count stays hidden).
 *
 * Under @hono/node-server they go straight onto Node's ServerResponse: Node merges them into the
 * response's own headers when it is written, at a fraction of the cost of Hono's `c.header`,
 * which makes Hono copy its Headers object twice more per request. A header of the same name set
 * by the handler wins. Elsewhere (in-process `app.request`) `c.header` is used.
 */
export function setAdmittedHeaders(c: Context, limit: number, remaining: number, resetSeconds: number, window: string): void {
  const outgoing = (c.env as { outgoing?: { setHeader?: unknown; headersSent?: boolean } } | undefined)?.outgoing;
  if (outgoing !== undefined && typeof outgoing.setHeader === 'function' && outgoing.headersSent === false) {
    const response = outgoing as unknown as OutgoingHeaders;
    response.setHeader('X-RateLimit-Limit', limit);
    response.setHeader('X-RateLimit-Remaining', remaining);
    response.setHeader('X-RateLimit-Reset', resetSeconds);
    response.setHeader('X-RateLimit-Window', window);
    return;
  }
  c.header('X-RateLimit-Limit', String(limit));
  c.header('X-RateLimit-Remaining', String(remaining));
  c.header('X-RateLimit-Reset', String(resetSeconds));
  c.header('X-RateLimit-Window', window);
}

interface OutgoingHeaders {
  setHeader(name: string, value: number | string): void;
}
