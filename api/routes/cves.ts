/**
 * The `/api/v1/public/cves` endpoints (contract 4.1-4.3, 4.7, 4.8, 4.11 `cves/match`): the
 * list, the summary, the trends, the NDJSON export, the vendor match and the record by id.
 * Static paths are registered before `/cves/{id}`, which would otherwise claim them.
 */
import { createRoute } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { ApiApp, ApiConfig, ApiEnv, RouteModule } from '../http/context.ts';
import { ApiError, invalidParameter, notFound } from '../http/errors.ts';
import { asRouteResponse, CACHE_CONTROL, etagOf, ifNoneMatchHits, sendBody, sendJson, shapedAnswer } from '../http/respond.ts';
import { cveIdPathParam, parseCveId } from '../http/params.ts';
import { countExport, exportStream } from '../queries/cves-export.ts';
import { listCves, shapedByBudget, type ListRequest } from '../queries/cves-list.ts';
import { renderListBody } from '../queries/cves-page.ts';
import { readPollerHealth, summaryBase } from '../queries/cves-summary.ts';
import { trendsBody } from '../queries/cves-trends.ts';
import { filterOf, interpretList } from './cves-params.ts';
import {
  CveExportQuery,
  CveListQuery,
  CveListSchema,
  CveMatchQuery,
  CveMatchSchema,
  CveRecordSchema,
  errorResponses,
  SummarySchema,
  TrendsSchema,
} from './cves-schemas.ts';
import { z } from '@hono/zod-openapi';

const TAG = 'CVEs';
const BASE = '/api/v1/public/cves';

/** Contract 4.1: `vendor` on the list is refused before anything else is looked at. */
const refuseVendor: MiddlewareHandler<ApiEnv> = async (c, next) => {
  if (c.req.query('vendor') !== undefined) {
    throw new ApiError(
      'VENDOR_FILTER_NOT_ALLOWED',
      'The CVE list does not filter by vendor. Use /api/v1/public/cves/match?vendor=…&product=… instead.',
      { parameter: 'vendor', see: `${BASE}/match` },
    );
  }
  await next();
};

/** Whether the request's query string holds `name` at all (even empty). */
function presence(c: Context): (name: string) => boolean {
  const url = new URL(c.req.url);
  return (name) => url.searchParams.has(name);
}

/** CPE-style key: lower case, runs of white space as one underscore (sql/05_side_tables.sql). */
export function productKey(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, '_');
}

/** The vendor match's condition on `cves`: CVEs whose products name the vendor (and product). */
export function vendorScope(vendor: string, product: string | null): NonNullable<ListRequest['scope']> {
  return (alias, params) =>
    `${alias}.cve_id IN (SELECT cve_id FROM products WHERE vendor_key = ${params.add(vendor)}${product === null ? '' : ` AND product_key = ${params.add(product)}`})`;
}

const listRoute = createRoute({
  operationId: 'listCves',
  method: 'get',
  path: BASE,
  tags: [TAG],
  summary: 'List CVEs',
  description:
    'The main feed, newest publication first by default (contract 4.1). Filters, free-text search, four sorts, offset or keyset paging, reverse reading of the default listing. Counting and phrase matching run under an execution budget: see `total_is_lower_bound`, `total_counted`, `search_relaxed`.',
  middleware: [refuseVendor],
  request: { query: CveListQuery },
  responses: {
    200: { description: 'A page of CVEs (contract 2.3).', content: { 'application/json': { schema: CveListSchema } } },
    ...errorResponses(400, 503),
  },
});

const summaryRoute = createRoute({
  operationId: 'getCveSummary',
  method: 'get',
  path: `${BASE}/summary`,
  tags: [TAG],
  summary: 'Counts by severity, snapshot and source health, live poller health',
  responses: {
    200: { description: 'The summary (contract 2.4).', content: { 'application/json': { schema: SummarySchema } } },
    ...errorResponses(503),
  },
});

const trendsRoute = createRoute({
  operationId: 'getCveTrends',
  method: 'get',
  path: `${BASE}/trends`,
  tags: [TAG],
  summary: 'Weekly and monthly volume, week-over-week change, severity distribution',
  responses: {
    200: { description: 'Trends (contract 2.7), anchored at the snapshot\'s newest publication week.', content: { 'application/json': { schema: TrendsSchema } } },
    ...errorResponses(503),
  },
});

const exportRoute = createRoute({
  operationId: 'exportCves',
  method: 'get',
  path: `${BASE}/export.ndjson`,
  tags: [TAG],
  summary: 'Export CVE records as NDJSON',
  description:
    'One CVE record per line, newest publication first, active CVEs only, at most 50,000 rows per call (headers X-Export-Total, X-Export-Rows, X-Export-Cap, X-Export-Truncated); iterate over `year` for the full dataset.',
  request: { query: CveExportQuery },
  responses: {
    200: {
      description: 'NDJSON stream of CVE records.',
      headers: {
        'X-Export-Total': { required: true, description: 'CVEs matching the filter.', schema: { type: 'integer', minimum: 0 } },
        'X-Export-Rows': { required: true, description: 'Rows in this body: the total, at most the cap.', schema: { type: 'integer', minimum: 0 } },
        'X-Export-Cap': { required: true, description: 'Rows per call (VULNINTEL_EXPORT_CAP).', schema: { type: 'integer', minimum: 1 } },
        'X-Export-Truncated': { required: true, description: 'true when the total exceeds the cap.', schema: { type: 'string', enum: ['true', 'false'] } },
      },
      content: { 'application/x-ndjson': { schema: z.string().openapi({ description: 'One CveRecord JSON per line.' }) } },
    },
    ...errorResponses(400, 503),
  },
});

const matchRoute = createRoute({
  operationId: 'matchCves',
  method: 'get',
  path: `${BASE}/match`,
  tags: [TAG],
  summary: 'CVEs of a vendor (and product)',
  description:
    'The vendor filter for CVEs (contract 4.11): CVEs whose CPE configurations or CNA `affected` entries name the vendor (and product). Paged and filtered like the list; `reverse` is not served here.',
  request: { query: CveMatchQuery },
  responses: {
    200: { description: 'A page of CVEs (contract 2.3) with the keys matched.', content: { 'application/json': { schema: CveMatchSchema } } },
    ...errorResponses(400, 503),
  },
});

const recordRoute = createRoute({
  operationId: 'getCve',
  method: 'get',
  path: `${BASE}/{id}`,
  tags: [TAG],
  summary: 'One CVE record',
  request: { params: z.object({ id: cveIdPathParam() }) },
  responses: {
    200: { description: 'The merged CVE record (contract 2.1, 2.2).', content: { 'application/json': { schema: CveRecordSchema } } },
    ...errorResponses(400, 404, 503),
  },
});

/** The `id` path parameter as cveIdPathParam reads it, failing as validationHook reports it. */
function readCveIdParam(raw: string): string {
  try {
    return parseCveId(raw);
  } catch (err) {
    throw invalidParameter('id', `id: ${(err as Error).message}`);
  }
}

function register(app: ApiApp, config: ApiConfig): void {
  app.openapi(listRoute, async (c) => {
    const deadline = performance.now() + config.queryBudgetMs;
    const query = c.req.valid('query');
    const { request, reverseAvailable } = interpretList(query, presence(c));
    const snapshot = c.get('snapshot');
    const result = await listCves(snapshot, request, deadline);
    const page = renderListBody(snapshot.records, snapshot.buildId, result, { reverse: request.reverse, reverseAvailable, limit: request.limit, offset: request.offset });
    return asRouteResponse(sendBody(c, page.body, { etag: page.etag, ...shapedAnswer(c, shapedByBudget(request, result)) }));
  });

  app.openapi(summaryRoute, async (c) => {
    const base = await summaryBase(c.get('snapshot'));
    const poller = await readPollerHealth(config.dataDir);
    return asRouteResponse(sendJson(c, { ...base, poller }, { cacheControl: CACHE_CONTROL.live }));
  });

  app.openapi(trendsRoute, async (c) => {
    const snapshot = c.get('snapshot');
    const bytes = await snapshot.memo('trends-json', async () => Buffer.from(JSON.stringify(await trendsBody(snapshot))));
    return asRouteResponse(sendBody(c, bytes));
  });

  app.openapi(exportRoute, async (c) => {
    const query = c.req.valid('query');
    const snapshot = c.get('snapshot');
    const filter = filterOf({ ...query, status: 'active' });
    const total = await countExport(snapshot, filter);
    const rows = Math.min(total, config.exportCap);
    // The body is a function of the snapshot, the filter and the cap: so is its ETag.
    const etag = `W/${etagOf(`${snapshot.buildId}\n${JSON.stringify(filter, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}\n${config.exportCap}`)}`;
    const headers: Record<string, string> = {
      ETag: etag,
      'Cache-Control': CACHE_CONTROL.snapshot,
      'X-Export-Total': String(total),
      'X-Export-Rows': String(rows),
      'X-Export-Cap': String(config.exportCap),
      'X-Export-Truncated': String(total > config.exportCap),
    };
    if (ifNoneMatchHits(c.req.header('if-none-match'), etag)) return asRouteResponse(c.body(null, 304, headers));
    headers['Content-Type'] = 'application/x-ndjson; charset=utf-8';
    // HEAD gets the headers only: a stream nobody reads would hold the snapshot open.
    if (c.req.method === 'HEAD') return asRouteResponse(c.body(null, 200, headers));
    return asRouteResponse(c.body(exportStream(snapshot, filter, config.exportCap), 200, headers));
  });

  app.openapi(matchRoute, async (c) => {
    const deadline = performance.now() + config.queryBudgetMs;
    const query = c.req.valid('query');
    // Not blank: the query schema refuses a blank vendor (400 naming it).
    const vendor = productKey(query.vendor);
    const product = query.product === undefined || query.product.trim() === '' ? null : productKey(query.product);
    const { request } = interpretList(query, presence(c), 'vendor');
    request.scope = vendorScope(vendor, product);
    const snapshot = c.get('snapshot');
    const result = await listCves(snapshot, request, deadline);
    const keys = `"vendor":${JSON.stringify(vendor)},"product":${JSON.stringify(product)}`;
    const page = renderListBody(snapshot.records, snapshot.buildId, result, { reverse: false, reverseAvailable: false, limit: request.limit, offset: request.offset }, keys);
    return asRouteResponse(sendBody(c, page.body, { etag: page.etag, ...shapedAnswer(c, shapedByBudget(request, result)) }));
  });

  // The hottest route: documented like the others, but its one parameter is read here instead
  // of through the zod validator app.openapi adds (a middleware and a schema run per lookup,
  // a twentieth of its time). The check and the 400 are the same: cveIdPathParam's parse, and
  // validationHook's INVALID_PARAMETER naming `id`. A server without a rate limiter makes this
  // route's 200 and 304 before Hono (api/http/record-front-door.ts), from the same composeAnswer:
  // what changes here must change there.
  app.openAPIRegistry.registerPath(recordRoute);
  app.get(`${BASE}/:id`, async (c) => {
    const id = readCveIdParam(c.req.param('id'));
    const snapshot = c.get('snapshot');
    const doc = snapshot.records.docOf(id);
    if (doc === undefined) throw notFound(`${id} is not in snapshot ${snapshot.buildId}`);
    return asRouteResponse(sendBody(c, snapshot.records.bytes(doc), { etag: snapshot.records.etagOf(doc) }));
  });
}

export const cvesRoutes: RouteModule = { name: 'cves', register };
