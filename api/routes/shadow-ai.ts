/**
 * `GET /api/v1/public/shadow-ai-radar` (contract 4.11): CVEs and vendor advisories touching the
 * AI/ML software of the catalog in api/shadow-ai/catalog.ts (docs/api-resources.md).
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { ApiApp, RouteModule } from '../http/context.ts';
import { enumListParam, integerParam, timestampParam } from '../http/params.ts';
import { asRouteResponse, sendJson } from '../http/respond.ts';
import { shadowAiRadar } from '../queries/shadow-ai.ts';
import { SHADOW_AI_CATALOG } from '../shadow-ai/catalog.ts';
import { errorResponses } from './cves-schemas.ts';
import { CveSummarySchema, DEFAULT_LIMIT, MAX_LIMIT, PUBLIC_BASE, readingTables } from './resource-common.ts';

const COMPONENT_IDS = SHADOW_AI_CATALOG.map((c) => c.id);

const RadarSchema = z
  .object({
    components: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        category: z.enum(['framework', 'model_server', 'llm_sdk', 'agent_app']),
        cve_count: z.number().int(),
        advisory_count: z.number().int(),
      }),
    ).openapi({ description: 'Catalog components with at least one CVE or advisory under the filter, most CVEs first.' }),
    cves: z.array(CveSummarySchema.extend({ components: z.array(z.string()) })).openapi({ description: 'Active CVEs, newest publication first.' }),
    advisories: z.array(
      z.object({
        vendor: z.string(),
        advisory_id: z.string(),
        api_path: z.string(),
        title: z.string().nullable(),
        published: z.string().nullable(),
        modified: z.string().nullable(),
        vendor_severity: z.string().nullable(),
        cvss_score: z.number().nullable(),
        has_cve: z.boolean(),
        cve_ids: z.array(z.string()),
        components: z.array(z.string()),
      }),
    ).openapi({ description: 'Vendor advisories whose product names match, newest first.' }),
    total_cves: z.number().int(),
    total_advisories: z.number().int(),
    limit: z.number().int(),
  })
  .openapi('ShadowAiRadar');

const route = createRoute({
  operationId: 'getShadowAiRadar',
  method: 'get',
  path: `${PUBLIC_BASE}/shadow-ai-radar`,
  tags: ['Shadow AI'],
  summary: 'CVEs and advisories of AI/ML frameworks, model servers, LLM SDKs and agent apps',
  description:
    'Matches the curated catalog (docs/api-resources.md) against affected products (CPE / CNA vendor and product), affected packages (OSV ecosystem and name) and vendor advisory product names.',
  request: {
    query: z.object({
      component: enumListParam(COMPONENT_IDS, { description: 'Comma-separated catalog ids to keep (default: all).', example: 'ollama,vllm' }),
      since: timestampParam('CVEs last modified, advisories modified (else published), at or after this time.'),
      limit: integerParam({ min: 1, max: MAX_LIMIT, default: DEFAULT_LIMIT, description: `Rows of each list, 1-${MAX_LIMIT}.` }),
    }),
  },
  responses: {
    200: { description: 'The radar.', content: { 'application/json': { schema: RadarSchema } } },
    ...errorResponses(400, 503),
  },
});

function register(app: ApiApp): void {
  app.openapi(route, async (c) => {
    const { component, since, limit } = c.req.valid('query');
    const radar = await readingTables(() =>
      shadowAiRadar(c.get('snapshot'), { components: component ?? [], sinceMicros: since, limit: limit ?? DEFAULT_LIMIT }),
    );
    return asRouteResponse(sendJson(c, radar));
  });
}

export const shadowAiRoutes: RouteModule = { name: 'shadow-ai-radar', register };
