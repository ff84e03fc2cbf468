/**
 * `GET /api/v1/public/kev/recent` (contract 4.11): CVEs most recently added to CISA's KEV
 * catalog, newest first. `days` counts back from the date of the catalog the snapshot holds;
 * without `days` and `limit` the window is 30 days; with `limit` and no `days`, the newest `limit`
 * additions whatever their date.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { ApiApp, RouteModule } from '../http/context.ts';
import { integerParam } from '../http/params.ts';
import { asRouteResponse, sendJson } from '../http/respond.ts';
import { DEFAULT_KEV_DAYS, listRecentKev } from '../queries/kev.ts';
import { errorResponses } from './cves-schemas.ts';
import { DEFAULT_LIMIT, MAX_LIMIT, PUBLIC_BASE, readingTables } from './resource-common.ts';

const KevRecentSchema = z
  .object({
    as_of: z.string().nullable().openapi({ description: 'The catalog date the window counts back from (its release date, else its newest addition).' }),
    days: z.number().int().nullable(),
    window_start: z.string().nullable().openapi({ description: 'First day inside the window.' }),
    total: z.number().int().openapi({ description: 'Additions inside the window (the whole catalog without one).' }),
    limit: z.number().int(),
    offset: z.number().int(),
    cves: z.array(
      z.object({
        cve_id: z.string(),
        vendor_project: z.string().nullable(),
        product: z.string().nullable(),
        vulnerability_name: z.string().nullable(),
        date_added: z.string(),
        due_date: z.string().nullable(),
        short_description: z.string().nullable(),
        required_action: z.string().nullable(),
        known_ransomware_campaign_use: z.string().nullable(),
        notes: z.string().nullable(),
        cwes: z.array(z.string()),
        service_score: z.number().nullable(),
        score_assessed: z.boolean().nullable(),
        service_severity: z.string().nullable(),
        service_risk: z.number().nullable(),
      }),
    ),
  })
  .openapi('KevRecent');

const route = createRoute({
  operationId: 'listRecentKev',
  method: 'get',
  path: `${PUBLIC_BASE}/kev/recent`,
  tags: ['KEV'],
  summary: 'CVEs most recently added to the KEV catalog',
  request: {
    query: z.object({
      days: integerParam({ min: 1, max: 365, description: `Additions within this many days up to the catalog date (inclusive). Default ${DEFAULT_KEV_DAYS} unless \`limit\` is given.` }),
      limit: integerParam({ min: 1, max: MAX_LIMIT, default: DEFAULT_LIMIT, description: `Rows, 1-${MAX_LIMIT}. Given without \`days\`: the newest additions whatever their date.` }),
      offset: integerParam({ min: 0, max: Number.MAX_SAFE_INTEGER, default: 0, description: 'Rows to skip.' }),
    }),
  },
  responses: {
    200: { description: 'Recent KEV additions with the service score, severity and risk.', content: { 'application/json': { schema: KevRecentSchema } } },
    ...errorResponses(400, 503),
  },
});

function register(app: ApiApp): void {
  app.openapi(route, async (c) => {
    const { days, limit, offset } = c.req.valid('query');
    const window = days ?? (limit === undefined ? DEFAULT_KEV_DAYS : undefined);
    const recent = await readingTables(() => listRecentKev(c.get('snapshot'), { days: window, limit: limit ?? DEFAULT_LIMIT, offset: offset ?? 0 }));
    return asRouteResponse(sendJson(c, recent));
  });
}

export const kevRoutes: RouteModule = { name: 'kev', register };
