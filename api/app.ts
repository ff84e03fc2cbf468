/**
 * The Hono app of the read API (DESIGN §6). Middleware order, outermost first:
 *   1. standardHeaders — CORS preflight; CORS, nosniff, X-Snapshot, Cache-Control, ETag on every
 *      response (errors and 429s included, since it wraps everything below);
 *   2. the rate limiter (api/ratelimit), when configured — the first thing a request meets;
 *   3. readOnly (paths under /api/, the Atom feed and the event stream) — 405 for methods other
 *      than GET/HEAD/OPTIONS: the read API is GET-only; /pulse (subscriptions,
 *      api/pulse/routes.ts) takes POST/PATCH/DELETE;
 *   4. retainSnapshot (paths under /api/v1/public and /pulse/feeds) — 503 NO_SNAPSHOT, or the
 *      request's snapshot; then, under /api/v1/public, the snapshot's response cache
 *      (api/http/response-cache.ts) answers a GET it has answered before;
 *   5. the routes of every module in api/routes/index.ts, the /pulse subscription endpoints when
 *      a pulse service is given, then the OpenAPI document and docs, then the web area's pages
 *      (api/pulse/routes.tsx; its unknown paths get an HTML 404).
 * Every failure becomes the JSON error of api/http/errors.ts; nothing leaks a stack.
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { Logger } from 'pino';
import { TableUnavailableError } from './queries/support.ts';
import type { RateLimiter } from './ratelimit/index.ts';
import type { ApiApp, ApiConfig, ApiEnv } from './http/context.ts';
import { ApiError, internalError, invalidParameter, notFound } from './http/errors.ts';
import { readOnly, retainSnapshot, standardHeaders } from './http/middleware.ts';
import { cacheResponses } from './http/response-cache.ts';
import { asRouteResponse, CACHE_CONTROL, defaultCacheControl, sendJson } from './http/respond.ts';
import { registerOpenApi } from './openapi.ts';
import { registerPulseRoutes, type PulseHttpOptions } from './pulse/routes.ts';
import { pulseApiAllow } from './pulse/api-methods.ts';
import { ROUTE_MODULES } from './routes/index.ts';
import { ATOM_PATH, STREAM_PATH } from './routes/pulse-feeds.ts';
import { errorPage, pulseNotFound, registerPulse, registerPulsePageMethods } from './pulse/routes.tsx';
import { pulsePageAllow } from './pulse/page-methods.ts';
import { PageError } from './pulse/page-response.ts';
import { isCrossSiteWrite } from './http/cross-site-writes.ts';
import { malformedPathParameter, malformedQueryParameter } from './http/query-encoding.ts';
import { PulseUnavailableError } from '../lib/pulse/errors.ts';
import { registerPulseLinkPages } from './pulse/link-pages.tsx';
import { Handoffs } from './pulse/handoff.ts';
import { packageIndexOf } from './queries/packages.ts';
import type { ServingSnapshot } from './snapshot/serving.ts';
import type { SnapshotStore } from './snapshot/store.ts';
import { StreamRegistry } from './http/streams.ts';
import { CallerResolver } from './ratelimit/caller.ts';
import { withoutTokens } from '../lib/pulse/links.ts';

export const DEFAULT_QUERY_BUDGET_MS = 250;
export const DEFAULT_EXPORT_CAP = 50_000;

export interface AppOptions {
  store: SnapshotStore;
  dataDir: string;
  logger: Logger;
  queryBudgetMs?: number;
  exportCap?: number;
  /** Mounted first in the chain (after the standard headers) when given. */
  rateLimiter?: RateLimiter | undefined;
  /** Open change streams; the server passes its own so that closing ends them. */
  streams?: StreamRegistry;
  /** Who one caller is (`--trust-proxy`); default: the socket's peer alone. */
  callers?: CallerResolver;
  /** The /pulse subscription endpoints (absent: /pulse/api answers 404). */
  pulse?: PulseHttpOptions | undefined;
  /** `--public-url` when given (ApiConfig.publicUrl). */
  publicUrl?: string | undefined;
}

function errorResponse(c: Context, err: ApiError): Response {
  return sendJson(c, err.body(), {
    status: err.status,
    headers: err.headers,
    // The subscription API's answers are about one subscription, its token in the path: no
    // shared cache keeps them, its refusals included (api/pulse/routes.ts).
    cacheControl: c.req.path.startsWith('/pulse/api/') ? CACHE_CONTROL.noStore : defaultCacheControl(err.status),
  });
}

/** Turns a failed zod validation into 400 INVALID_PARAMETER naming the parameter. */
function validationHook(
  result: { success: true } | { success: false; target: string; error: { issues: { path: PropertyKey[]; message: string; code?: string }[] } },
  c: Context,
): void {
  if (result.success) return;
  const issue = result.error.issues[0];
  const parameter = issue && issue.path.length > 0 ? String(issue.path[0]) : result.target;
  let message = issue?.message ?? 'malformed';
  if (issue?.code === 'invalid_type') {
    const sent = result.target === 'query' ? c.req.queries(parameter) : undefined;
    message = sent === undefined ? 'required' : sent.length > 1 ? 'given more than once' : message;
  }
  throw invalidParameter(parameter, `${parameter}: ${message}`);
}

/** Paths of the web area answered with HTML (not its JSON API, feeds or stream). */
function isPulsePage(path: string): boolean {
  return PULSE_AREA.test(path) && !PULSE_NOT_PAGES.test(path);
}
const PULSE_AREA = /^\/pulse(?:\/|$)/;
const PULSE_NOT_PAGES = /^\/pulse\/(?:api(?:\/|$)|feeds(?:\/|$)|stream|suggest$)/;

/** `GET /api/v1/health` (not part of the contract): what a load balancer or an operator checks. */
const healthRoute = createRoute({
  operationId: 'getHealth',
  method: 'get',
  path: '/api/v1/health',
  tags: ['Service'],
  summary: 'Whether this replica serves a snapshot, and its rate limiter\'s state',
  responses: {
    200: {
      description:
        'Always 200 while the process answers; `status` says whether a snapshot is served (`no_snapshot`: the data paths answer 503), `snapshot_error` why the published one is not (an older one, or none, is served meanwhile).',
      content: {
        'application/json': {
          schema: z
            .object({
              status: z.enum(['ok', 'no_snapshot']),
              snapshot: z.object({ build_id: z.string(), built_at: z.string(), cves: z.number().int() }).nullable(),
              snapshot_error: z
                .object({
                  build_id: z.string().nullable().openapi({ description: 'The build CURRENT names; null when CURRENT itself could not be read as a build id.' }),
                  error: z.string().openapi({ description: 'Why, paths relative to the data folder.' }),
                  since: z.string().openapi({ description: 'When it first failed (ISO 8601); tried again every 30 s.' }),
                })
                .nullable()
                .openapi({
                  description:
                    'The snapshot published in CURRENT that this replica could not open, while it cannot: `snapshot` is then an older one (or none). Null when the published snapshot is the one served.',
                }),
              rate_limit: z.object({}).passthrough().nullable().openapi({ description: 'The rate limiter\'s health (per-minute store, callers tracked, refusals); null when rate limiting is off.' }),
            })
            .openapi('Health'),
        },
      },
    },
  },
});

export function createApp(opts: AppOptions): ApiApp {
  const config: ApiConfig = {
    dataDir: opts.dataDir,
    store: opts.store,
    logger: opts.logger,
    queryBudgetMs: opts.queryBudgetMs ?? DEFAULT_QUERY_BUDGET_MS,
    exportCap: opts.exportCap ?? DEFAULT_EXPORT_CAP,
    streams: opts.streams ?? new StreamRegistry(),
    callers: opts.callers ?? new CallerResolver([]),
    ...(opts.publicUrl ? { publicUrl: opts.publicUrl.replace(/\/+$/, '') } : {}),
  };
  const app: ApiApp = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook as never });

  // OPTIONS names each path's methods: the /pulse/api endpoints' and the /pulse pages' (the
  // subscription pages take their forms' POST).
  const pageAllow = pulsePageAllow(opts.pulse !== undefined);
  app.use('*', standardHeaders(opts.store, (path) => (opts.pulse ? pulseApiAllow(path) : undefined) ?? pageAllow(path)));
  // ── Rate limiting mount point ─────────────────────────────────────────────────────────────
  // createRateLimiter(config).middleware goes here: before any work is done for the request,
  // inside standardHeaders so that its 429s carry CORS, nosniff, X-Snapshot and ETag like any answer.
  if (opts.rateLimiter) app.use('*', opts.rateLimiter.middleware);
  // A query that does not decode to UTF-8 text is a 400 naming the parameter (api/http/query-encoding.ts).
  // So is a path parameter of the APIs (the pages answer an unknown record with their 404); the
  // route table is read on such a request only, when every route is registered.
  app.use('*', async (c, next) => {
    if (!c.req.url.includes('%')) return next();
    const inQuery = malformedQueryParameter(c.req.url);
    const page = isPulsePage(c.req.path);
    if (inQuery !== null && page) return errorPage(c, new PageError(400, 'Bad address', inQuery.message, inQuery.parameter));
    const malformed = inQuery ?? (page ? null : malformedPathParameter(c.req.url, app.routes));
    if (malformed === null) return next();
    throw invalidParameter(malformed.parameter, malformed.message);
  });
  app.use('/api/*', readOnly);
  // The feed and the stream are read-only too, though outside /api: another method on them is a
  // 405 naming GET and HEAD (what their OPTIONS says), not a 404 saying the path does not exist.
  for (const path of [ATOM_PATH, STREAM_PATH]) app.use(path, readOnly);
  app.use('/api/v1/public/*', retainSnapshot(opts.store, cacheResponses));
  // The Atom feed reads one snapshot like the JSON API; the stream retains one per read itself.
  app.use('/pulse/feeds/*', retainSnapshot(opts.store));
  // A write to /pulse sent by another site's page is refused (api/http/cross-site-writes.ts).
  app.use('/pulse/*', async (c, next) => {
    if (!isCrossSiteWrite(c, config.publicUrl)) return next();
    const message =
      'This request was sent by a page of another site. Subscriptions are created and changed from this site\'s own pages, or by a program calling the API itself, not by a browser on another site\'s behalf.';
    if (isPulsePage(c.req.path)) return errorPage(c, new PageError(403, 'Refused: sent from another site', message));
    throw new ApiError('CROSS_SITE_REQUEST', message);
  });

  for (const module of ROUTE_MODULES) module.register(app, config);
  if (opts.pulse) registerPulseRoutes(app, opts.pulse);
  // The package index (api/queries/packages.ts) starts building as soon as a snapshot is
  // served, in the background: the replica answers everything else meanwhile, and a package
  // question arriving first waits for the same build instead of starting another.
  const warmPackages = (snapshot: ServingSnapshot) => void packageIndexOf(snapshot).catch(() => undefined);
  opts.store.onSwap(warmPackages);
  if (opts.store.current) warmPackages(opts.store.current);
  registerOpenApi(app);
  // The subscribe form's drafts and creations between its POST and the GET it is redirected to.
  const handoffs = opts.pulse ? new Handoffs() : undefined;
  registerPulse(app, config, handoffs && opts.pulse && { handoffs, email: opts.pulse.service.emailEnabled });
  if (opts.pulse && handoffs) registerPulseLinkPages(app, config, { ...opts.pulse, handoffs });
  // After every page: any other method on a page's path is a 405 naming the ones it takes.
  registerPulsePageMethods(app, opts.pulse !== undefined);
  app.openapi(healthRoute, (c) => {
    const snapshot = opts.store.current;
    const failure = opts.store.openFailure;
    return asRouteResponse(
      sendJson(
        c,
        {
          status: snapshot ? 'ok' : 'no_snapshot',
          snapshot: snapshot ? { build_id: snapshot.buildId, built_at: snapshot.manifest.built_at, cves: snapshot.records.size } : null,
          snapshot_error: failure && { build_id: failure.buildId, error: failure.error, since: failure.since },
          rate_limit: opts.rateLimiter ? opts.rateLimiter.health() : null,
        },
        { cacheControl: CACHE_CONTROL.noStore },
      ),
    );
  });

  app.notFound((c) => {
    const path = c.req.path;
    // `/pulse/cves/` is `/pulse/cves`, as `/pulse/` is `/pulse`: the page without its slash.
    if (isPulsePage(path) && path.length > 1 && path.endsWith('/')) {
      // The path as sent, its escapes kept: `c.req.path` is decoded, and `/pulse/%0d%0a…/` made
      // a Location holding CR LF, which Node refuses to write (a 500), and `%5C` a backslash.
      // The trailing slashes are sought only where a run of slashes begins: /\/+$/ tried every
      // slash of a long run in the middle (`/pulse/` 15,000 slashes `x/`: a third of a second).
      const url = new URL(c.req.url);
      return c.redirect(`${url.pathname.replace(/(?<!\/)\/+$/, '')}${url.search}`, 301);
    }
    return isPulsePage(path) ? pulseNotFound(c) : errorResponse(c, notFound(`No endpoint at ${path}. The API is described at /api/v1/openapi.json.`));
  });
  app.onError((err, c) => {
    if (err instanceof ApiError) return errorResponse(c, err);
    if (err instanceof TableUnavailableError) {
      return errorResponse(
        c,
        new ApiError('SNAPSHOT_TABLE_UNAVAILABLE', `This answer needs snapshot table ${err.table}, which could not be read.`, { table: err.table }),
      );
    }
    if (err instanceof HTTPException && err.status === 404) return errorResponse(c, notFound(err.message || 'not found'));
    // The subscription store is down: a 503 saying so, a page on the web area's pages.
    if (err instanceof PulseUnavailableError) {
      return isPulsePage(c.req.path) ? errorPage(c, new PageError(503, 'Subscriptions unavailable', err.message)) : errorResponse(c, new ApiError('SERVICE_UNAVAILABLE', err.message));
    }
    // The URL as logged holds no capability token (a manage or confirm link's).
    opts.logger.error({ err, method: c.req.method, url: withoutTokens(c.req.url) }, 'request failed');
    return errorResponse(c, internalError());
  });
  return app;
}
