/**
 * The JSON endpoints of /pulse subscriptions (PULSE §4); the link pages they lead to are
 * registered by api/pulse/link-pages.tsx on the same service:
 *
 *   POST   /pulse/api/subscriptions                      create (201)
 *   GET    /pulse/api/subscriptions/{token}              read (with its last deliveries)
 *   PATCH  /pulse/api/subscriptions/{token}              change filter and/or cadence
 *   DELETE /pulse/api/subscriptions/{token}              delete
 *   POST   /pulse/api/subscriptions/{token}/pause|resume
 *   GET    /pulse/api/subscriptions/{token}/deliveries   the delivery ledger, newest first
 *   POST   /pulse/api/confirm/{token}                    confirm an e-mail subscription
 *   POST   /pulse/api/preview                            what a filter matched in the last N days
 *   GET    /pulse/confirm/{token}   page with a Confirm button; POST confirms
 *   GET    /pulse/s/{token}         manage page
 *   GET    /pulse/s/{token}/unsubscribe  page with a button; POST unsubscribes (RFC 8058 one-click)
 *
 * Answers are never cached (they are about one subscription); errors use the API's JSON shape:
 * bad input 400 INVALID_PARAMETER naming the field, unknown token 404, creation limits 429.
 * The read API's GET-only rule does not apply here (app.ts scopes it to /api/).
 */
import type { Context } from 'hono';
import { PulseInputError, PulseLimitError, PulseNotFoundError, PulseUnavailableError } from '../../lib/pulse/errors.ts';
import { MAX_BODY_BYTES, parseJsonBody } from '../../lib/pulse/input.ts';
import { CREATE_WINDOW_MS, type PulseService } from '../../lib/pulse/service.ts';
import type { CallerResolver } from '../ratelimit/caller.ts';
import { windowLabel } from '../ratelimit/responses.ts';
import type { ApiApp } from '../http/context.ts';
import { BodyTooLargeError, readBoundedBody } from '../http/bounded-body.ts';
import { ApiError, invalidParameter, notFound, rateLimited } from '../http/errors.ts';
import { CACHE_CONTROL, sendBody, sendJson } from '../http/respond.ts';
import { PULSE_API_METHODS, pulseMethodNotAllowed } from './api-methods.ts';
import { registerPulseOpenApi } from './openapi.ts';

export interface PulseHttpOptions {
  service: PulseService;
  callers: CallerResolver;
}

const HTML = 'text/html; charset=utf-8';
/** Tokens sit in these URLs: no Referer to anywhere, no indexing. */
const PRIVATE_HEADERS = { 'Referrer-Policy': 'no-referrer', 'X-Robots-Tag': 'noindex' };

/** The request body, refused past MAX_BODY_BYTES without reading it all (a 400 naming `body`). */
async function readBody(c: Context): Promise<Uint8Array> {
  try {
    return await readBoundedBody(c, MAX_BODY_BYTES);
  } catch (err) {
    if (err instanceof BodyTooLargeError) throw invalidParameter('body', err.message);
    throw err;
  }
}

function toApiError(err: unknown): unknown {
  if (err instanceof PulseInputError) return invalidParameter(err.field, err.message);
  if (err instanceof PulseNotFoundError) return notFound(err.message);
  if (err instanceof PulseLimitError) {
    // The RateLimited answer of every other refusal: the X-RateLimit-* headers and body describe
    // the creation limit. They were the rate limiter's per-second ones of the admitted request
    // (X-RateLimit-Remaining 19, X-RateLimit-Reset 1 beside Retry-After 3000): a client
    // honouring them retried at once, and no retry_after / window in the body.
    return rateLimited(err.message, { retryAfter: err.retryAfterSeconds, limit: err.limit, window: windowLabel(CREATE_WINDOW_MS), scope: `pulse_create_per_${err.scope}` });
  }
  if (err instanceof PulseUnavailableError) return new ApiError('SERVICE_UNAVAILABLE', err.message);
  return err;
}

/** Runs a handler with the service's errors turned into API errors. */
async function mapped(fn: () => Promise<Response>): Promise<Response> {
  try {
    return await fn();
  } catch (err) {
    throw toApiError(err);
  }
}

const json = (c: Context, value: unknown, status = 200) => sendJson(c, value, { status, cacheControl: CACHE_CONTROL.noStore });
const html = (c: Context, body: string, status = 200) => sendBody(c, body, { status, contentType: HTML, cacheControl: CACHE_CONTROL.noStore, headers: PRIVATE_HEADERS });

async function jsonBody(c: Context): Promise<unknown> {
  try {
    return parseJsonBody(await readBody(c));
  } catch (err) {
    throw toApiError(err);
  }
}

export function registerPulseRoutes(app: ApiApp, opts: PulseHttpOptions): void {
  const { service, callers } = opts;
  const callerOf = (c: Context) => callers.resolve(c.env?.incoming?.socket?.remoteAddress, () => c.req.header('x-forwarded-for'));
  const api = '/pulse/api';

  app.post(`${api}/subscriptions`, async (c) => {
    const body = await jsonBody(c);
    return mapped(async () => json(c, await service.create(body, callerOf(c)), 201));
  });
  app.get(`${api}/subscriptions/:token`, (c) => mapped(async () => json(c, await service.get(c.req.param('token')))));
  app.patch(`${api}/subscriptions/:token`, async (c) => {
    const body = await jsonBody(c);
    return mapped(async () => json(c, await service.update(c.req.param('token'), body)));
  });
  app.delete(`${api}/subscriptions/:token`, (c) =>
    mapped(async () => {
      await service.delete(c.req.param('token'));
      return json(c, { deleted: true });
    }),
  );
  app.post(`${api}/subscriptions/:token/pause`, (c) => mapped(async () => json(c, await service.pause(c.req.param('token')))));
  app.post(`${api}/subscriptions/:token/resume`, (c) => mapped(async () => json(c, await service.resume(c.req.param('token')))));
  app.get(`${api}/subscriptions/:token/deliveries`, (c) =>
    mapped(async () => {
      const sent = c.req.queries('limit');
      if (sent !== undefined && sent.length > 1) throw new PulseInputError('limit', 'limit: given more than once');
      const raw = sent?.[0];
      if (raw !== undefined && !/^\d{1,3}$/.test(raw)) throw new PulseInputError('limit', 'limit: an integer from 1 to 200');
      const limit = raw === undefined ? 50 : Number(raw);
      if (limit < 1 || limit > 200) throw new PulseInputError('limit', 'limit: an integer from 1 to 200');
      return json(c, { deliveries: await service.deliveries(c.req.param('token'), limit) });
    }),
  );
  app.post(`${api}/confirm/:token`, (c) => mapped(async () => json(c, await service.confirm(c.req.param('token')))));
  app.post(`${api}/preview`, async (c) => {
    const body = await jsonBody(c);
    return mapped(async () => {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new PulseInputError('body', 'body: must be a JSON object');
      const { filter, days, ...rest } = body as Record<string, unknown>;
      const unknown = Object.keys(rest)[0];
      if (unknown !== undefined) throw new PulseInputError(unknown, `${unknown}: unknown member "${unknown}"`);
      if (days !== undefined && typeof days !== 'number') throw new PulseInputError('days', 'days: an integer from 1 to 90');
      // Only an absent filter is the empty one: null is a filter that is no object (400), as
      // when creating or changing a subscription.
      return json(c, await service.previewMatches(filter, (days as number | undefined) ?? 30));
    });
  });

  // Any other method on these paths: 405 with the path's Allow (registered last, so the
  // methods above match first).
  for (const [pattern] of PULSE_API_METHODS) {
    app.all(pattern, (c) => {
      throw pulseMethodNotAllowed(c.req.method, c.req.path);
    });
  }

  // The pages these links lead to are the web area's (api/pulse/link-pages.tsx).
  registerPulseOpenApi(app, { email: service.emailEnabled });
}
