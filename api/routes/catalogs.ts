/**
 * Catalogues (contract 4.11): `GET /api/v1/public/cwes`, `/ecosystems`, `/vendors`.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { ApiApp, RouteModule } from '../http/context.ts';
import { textParam } from '../http/params.ts';
import { asRouteResponse, sendJson } from '../http/respond.ts';
import { listCwes, listEcosystems, listVendors } from '../queries/catalogs.ts';
import { errorResponses } from './cves-schemas.ts';
import { DEFAULT_LIMIT, PUBLIC_BASE, pagingParams, readingTables } from './resource-common.ts';

const TAG = 'Catalogues';
const MAX_Q = 100;

const CweListSchema = z
  .object({
    cwes: z.array(
      z.object({
        cwe_id: z.string(),
        name: z.string().nullable(),
        kind: z.string().nullable().openapi({ description: 'weakness, category or view; null for ids outside the MITRE catalog (NVD-CWE-noinfo, NVD-CWE-Other).' }),
        abstraction: z.string().nullable(),
        status: z.string().nullable(),
        description: z.string().nullable().openapi({ description: 'At most 200 characters.' }),
        cve_count: z.number().int().openapi({ description: 'Active CVEs carrying the CWE.' }),
      }),
    ),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .openapi('CweList');

const EcosystemListSchema = z
  .object({
    ecosystems: z.array(
      z.object({
        ecosystem: z.string(),
        package_count: z.number().int(),
        cve_count: z.number().int(),
        package_lookup: z.boolean().openapi({
          description:
            'true: `/packages/{ecosystem}/{name}` and purls of this ecosystem are answered. false: listed for its counts only; its versions have no order the service knows (OSV `GIT` ranges name commits), so package questions about it are refused with 400.',
        }),
      }),
    ),
    total: z.number().int(),
  })
  .openapi('EcosystemList');

const VendorListSchema = z
  .object({
    vendors: z.array(
      z.object({
        vendor: z.string().openapi({ description: 'Normalised key (lower case, spaces as `_`): the `vendor` of /cves/match.' }),
        name: z.string().openapi({ description: 'The spelling most records use.' }),
        product_count: z.number().int(),
        cve_count: z.number().int(),
      }),
    ),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .openapi('VendorList');

const cwesRoute = createRoute({
  operationId: 'listCwes',
  method: 'get',
  path: `${PUBLIC_BASE}/cwes`,
  tags: [TAG],
  summary: 'CWE catalogue with CVE counts',
  description: 'Most used first (active CVEs), then by CWE number.',
  request: {
    query: z.object({
      q: textParam({ max: MAX_Q, description: 'Keeps CWEs whose id or name contains this text, any case; an exact id (`79`, `CWE-79`) comes first.', example: 'injection' }),
      ...pagingParams,
    }),
  },
  responses: {
    200: { description: 'A page of CWEs.', content: { 'application/json': { schema: CweListSchema } } },
    ...errorResponses(400, 503),
  },
});

const ecosystemsRoute = createRoute({
  operationId: 'listEcosystems',
  method: 'get',
  path: `${PUBLIC_BASE}/ecosystems`,
  tags: [TAG],
  summary: 'Package ecosystems with package and CVE counts',
  description: 'Ecosystems of affected packages (OSV names: PyPI, npm, Maven, Go, Debian:12, …), most CVEs first; active CVEs only. Every ecosystem in one answer.',
  responses: {
    200: { description: 'Every ecosystem.', content: { 'application/json': { schema: EcosystemListSchema } } },
    ...errorResponses(503),
  },
});

const vendorsRoute = createRoute({
  operationId: 'listVendors',
  method: 'get',
  path: `${PUBLIC_BASE}/vendors`,
  tags: [TAG],
  summary: 'Vendors with product and CVE counts',
  description: 'Vendors of affected products (CPE and CNA names), most CVEs first; active CVEs only.',
  request: {
    query: z.object({
      q: textParam({ max: MAX_Q, description: 'Prefix of the vendor, any case; spaces match underscores.', example: 'micro' }),
      ...pagingParams,
    }),
  },
  responses: {
    200: { description: 'A page of vendors.', content: { 'application/json': { schema: VendorListSchema } } },
    ...errorResponses(400, 503),
  },
});

function register(app: ApiApp): void {
  app.openapi(cwesRoute, async (c) => {
    const { q, limit, offset } = c.req.valid('query');
    const page = await readingTables(() => listCwes(c.get('snapshot'), q?.trim(), { limit: limit ?? DEFAULT_LIMIT, offset: offset ?? 0 }));
    return asRouteResponse(sendJson(c, page));
  });

  app.openapi(ecosystemsRoute, async (c) => {
    const ecosystems = await readingTables(() => listEcosystems(c.get('snapshot')));
    return asRouteResponse(sendJson(c, { ecosystems, total: ecosystems.length }));
  });

  app.openapi(vendorsRoute, async (c) => {
    const { q, limit, offset } = c.req.valid('query');
    const page = await readingTables(() => listVendors(c.get('snapshot'), q, { limit: limit ?? DEFAULT_LIMIT, offset: offset ?? 0 }));
    return asRouteResponse(sendJson(c, page));
  });
}

export const catalogsRoutes: RouteModule = { name: 'catalogs', register };
