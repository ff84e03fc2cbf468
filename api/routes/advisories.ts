/**
 * `GET /api/v1/public/vendor-advisories` and `/vendor-advisories/{vendor}/{advisory_id}`
 * (contract 4.9, 4.10): vendor-disclosed advisories, newest first, filtered by CVE linkage,
 * vendor and modification time; one advisory in full. Path parameters arrive URL-decoded, so
 * ids such as `RHSA-2026:9102` may be sent as they are or with `:` as `%3A`.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { ADVISORY_ID, ADVISORY_ID_MAX_LENGTH, ADVISORY_ID_MESSAGE, ADVISORY_VENDOR, ADVISORY_VENDOR_MESSAGE } from '../../lib/advisory-keys.ts';
import type { ApiApp, RouteModule } from '../http/context.ts';
import { notFound } from '../http/errors.ts';
import { booleanParam, queryParam, timestampParam } from '../http/params.ts';
import { asRouteResponse, sendBody, sendJson } from '../http/respond.ts';
import { findVendorAdvisory, listVendorAdvisories } from '../queries/advisories.ts';
import { errorResponses } from './cves-schemas.ts';
import { DEFAULT_LIMIT, PUBLIC_BASE, pagingParams, readingTables } from './resource-common.ts';

const TAG = 'Vendor advisories';

function parseVendor(raw: string): string {
  if (!ADVISORY_VENDOR.test(raw)) throw new Error(ADVISORY_VENDOR_MESSAGE);
  return raw.toLowerCase();
}

const ListQuery = z.object({
  has_cve: booleanParam('true: only advisories linked to a CVE; false: only those not linked to one yet (many advisories precede their CVE).'),
  vendor: queryParam(parseVendor, { pattern: ADVISORY_VENDOR.source, description: 'Advisory source (`redhat`, `cisco`, `microsoft`, `suse`, …), any case.', example: 'redhat' }),
  since: timestampParam('Modified (else published) at or after this time (`YYYY-MM-DD` or RFC 3339; UTC when no offset).'),
  ...pagingParams,
});

const PathParams = z.object({
  vendor: z
    .string()
    .regex(ADVISORY_VENDOR, ADVISORY_VENDOR_MESSAGE)
    .openapi({ param: { name: 'vendor', in: 'path' }, description: 'Advisory source, any case.', example: 'redhat' }),
  advisory_id: z
    .string()
    .min(1)
    .max(ADVISORY_ID_MAX_LENGTH)
    .regex(ADVISORY_ID, ADVISORY_ID_MESSAGE)
    .openapi({ param: { name: 'advisory_id', in: 'path' }, description: 'Advisory id as the vendor writes it, any case; URL-encode `/`.', example: 'RHSA-2024:6163' }),
});

const summaryFields = {
  vendor: z.string(),
  advisory_id: z.string(),
  api_path: z.string(),
  title: z.string().nullable(),
  published: z.string().nullable().openapi({ format: 'date-time' }),
  modified: z.string().nullable().openapi({ format: 'date-time' }),
  aggregate_severity: z.string().nullable().openapi({ description: "The advisory's own severity label, as the vendor words it." }),
  vendor_severity: z.string().nullable().openapi({ description: 'CRITICAL/HIGH/MEDIUM/LOW in the vendor\'s taxonomy: not a CVSS band, not comparable across vendors.' }),
  vendor_severity_source: z.string().nullable(),
  vendor_severity_evidence: z.string().nullable().openapi({ description: 'The exact advisory text the band was read from.' }),
  cvss_score: z.number().nullable(),
  has_cve: z.boolean(),
  cve_ids: z.array(z.string()),
  exploited: z.boolean().openapi({ description: 'The vendor flags a linked CVE as exploited.' }),
  url: z.string().nullable(),
};

const AdvisoryListSchema = z
  .object({
    advisories: z.array(z.object(summaryFields).openapi('VendorAdvisorySummary')),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .openapi('VendorAdvisoryList');

const AdvisorySchema = z
  .object({
    ...summaryFields,
    description: z.string().nullable(),
    publisher: z.string().nullable(),
    category: z.string().nullable(),
    tlp: z.string().nullable(),
    status: z.string().nullable(),
    version: z.string().nullable(),
    aggregate_severity_namespace: z.string().nullable(),
    cvss_vector: z.string().nullable(),
    products: z.array(z.string()),
    remediations: z.array(z.object({ category: z.string().nullable(), details: z.string().nullable(), url: z.string().nullable() })),
    references: z.array(z.object({ url: z.string().nullable(), summary: z.string().nullable(), category: z.string().nullable() })),
    cves: z.array(
      z.object({
        cve_id: z.string(),
        vendor_severity: z.string().nullable(),
        vendor_severity_source: z.string().nullable(),
        vendor_severity_evidence: z.string().nullable(),
        cvss_score: z.number().nullable(),
        cvss_vector: z.string().nullable(),
        cvss_version: z.string().nullable(),
        exploited: z.boolean(),
        exploited_evidence: z.string().nullable(),
        cwe_id: z.string().nullable(),
        api_path: z.string().nullable().openapi({ description: 'The CVE in this API; null when the snapshot holds no record of it yet.' }),
      }),
    ),
  })
  .openapi('VendorAdvisory');

const listRoute = createRoute({
  operationId: 'listVendorAdvisories',
  method: 'get',
  path: `${PUBLIC_BASE}/vendor-advisories`,
  tags: [TAG],
  summary: 'Vendor advisories, newest first',
  description: `Ordered by publication time, newest first. \`limit\` 1-200 (default ${DEFAULT_LIMIT}), \`offset\` to page; \`total\` counts every match.`,
  request: { query: ListQuery },
  responses: {
    200: { description: 'A page of advisories.', content: { 'application/json': { schema: AdvisoryListSchema } } },
    ...errorResponses(400, 503),
  },
});

const oneRoute = createRoute({
  operationId: 'getVendorAdvisory',
  method: 'get',
  path: `${PUBLIC_BASE}/vendor-advisories/{vendor}/{advisory_id}`,
  tags: [TAG],
  summary: 'One vendor advisory',
  request: { params: PathParams },
  responses: {
    200: { description: 'The advisory (contract 2.7).', content: { 'application/json': { schema: AdvisorySchema } } },
    ...errorResponses(400, 404, 503),
  },
});

function register(app: ApiApp): void {
  app.openapi(listRoute, async (c) => {
    const q = c.req.valid('query');
    const page = await readingTables(() =>
      listVendorAdvisories(c.get('snapshot'), {
        hasCve: q.has_cve,
        vendor: q.vendor,
        sinceMicros: q.since,
        limit: q.limit ?? DEFAULT_LIMIT,
        offset: q.offset ?? 0,
      }),
    );
    return asRouteResponse(sendJson(c, page));
  });

  app.openapi(oneRoute, async (c) => {
    const { vendor, advisory_id } = c.req.valid('param');
    // The build stored every advisory's answer; an id it does not know is asked of the snapshot.
    const stored = c.get('snapshot').answers.forAdvisory(vendor, advisory_id);
    if (stored) return asRouteResponse(sendBody(c, stored));
    const advisory = await readingTables(() => findVendorAdvisory(c.get('snapshot'), vendor, advisory_id));
    if (!advisory) throw notFound(`No advisory ${advisory_id} of ${vendor} in the snapshot.`);
    return asRouteResponse(sendJson(c, advisory));
  });
}

export const advisoriesRoutes: RouteModule = { name: 'vendor-advisories', register };
