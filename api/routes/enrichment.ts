/**
 * `GET /api/v1/public/cves/{id}/enrichment` (contract 2.6, 4.6): the CVE's enrichment sections.
 * A section whose table could not be read, or whose query failed, is served empty and named in
 * `failed_sections`; the failure is logged, the answer still 200.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { ApiApp, ApiConfig, RouteModule } from '../http/context.ts';
import { notFound } from '../http/errors.ts';
import { cveIdPathParam } from '../http/params.ts';
import { asRouteResponse, sendBody, sendJson } from '../http/respond.ts';
import { ENRICHMENT_SECTIONS, findCveEnrichment } from '../queries/enrichment.ts';
import { errorResponses } from './cves-schemas.ts';
import { ExploitRecordSchema } from './references.ts';
import { PUBLIC_BASE } from './resource-common.ts';

const FixBranchSchema = z.object({
  introduced: z.string().nullable(),
  fixed: z.string().nullable().openapi({ description: 'null where no fix is on record.' }),
  last_affected: z.string().nullable().openapi({ description: 'null where the range ends at a fix.' }),
  source: z.string().nullable(),
  advisory_id: z.string().nullable().openapi({ description: 'The OSV record that published the range.' }),
  range_type: z.string().nullable().openapi({ description: 'The OSV range type: SEMVER, ECOSYSTEM (the ecosystem\'s own version order) or GIT (commits, no version order).' }),
  limit: z.string().nullable().openapi({ description: 'The range\'s OSV `limit` event: versions at or above it are outside the range. null: none.' }),
});

const EnrichmentSchema = z
  .object({
    cve_id: z.string(),
    vendor_advisories: z.array(
      z.looseObject({
        vendor: z.string(),
        advisory_id: z.string(),
        api_path: z.string(),
        title: z.string().nullable(),
        published: z.string().nullable(),
        vendor_severity: z.string().nullable().openapi({ description: "The vendor's band for this CVE, in its own taxonomy." }),
        vendor_severity_source: z.string().nullable(),
        vendor_severity_evidence: z.string().nullable(),
        exploited: z.boolean(),
      }),
    ),
    patches: z.array(z.object({ url: z.string(), name: z.string().nullable(), tags: z.array(z.string()), sources: z.array(z.string()) })),
    fixed_versions: z.array(
      z.object({ ecosystem: z.string().nullable(), package_name: z.string(), purl: z.string().nullable(), fixed: z.array(z.string()), advisory_ids: z.array(z.string()) }),
    ),
    affected_packages: z.array(
      z.object({
        ecosystem: z.string().nullable(),
        package_name: z.string(),
        purl: z.string().nullable(),
        source: z.enum(['osv', 'cve_list']),
        advisory_ids: z.array(z.string()),
        fixed_branches: z
          .array(FixBranchSchema)
          .nullable()
          .openapi({ description: 'Every affected range with its fix. null: ranges never loaded; []: no range on record (not a finding that no fix exists).' }),
        fixed_version: z.string().nullable().openapi({ description: 'The fix of one range only (compatibility); not the fix for every affected version.' }),
        versions: z.array(z.string()),
        last_known_affected_version_range: z.string().nullable(),
      }),
    ),
    cwes: z.array(z.object({ cwe_id: z.string(), name: z.string().nullable(), abstraction: z.string().nullable() })),
    exploits: z.array(ExploitRecordSchema.extend({ from_exploit_record: z.boolean() })),
    timeline: z.array(
      z.object({
        date: z.string().openapi({ format: 'date-time' }),
        event: z.enum(['published', 'last_modified', 'kev_added', 'epss_scored', 'vendor_advisory_published', 'ghsa_published', 'osv_published', 'exploit_published']),
        source: z.string(),
        ref: z.string().nullable(),
      }),
    ),
    failed_sections: z.array(z.enum(ENRICHMENT_SECTIONS)).openapi({ description: 'Sections that could not be read; they are served empty. Always present.' }),
  })
  .openapi('CveEnrichment');

const enrichmentRoute = createRoute({
  operationId: 'getCveEnrichment',
  method: 'get',
  path: `${PUBLIC_BASE}/cves/{id}/enrichment`,
  tags: ['CVEs'],
  summary: 'Enrichment of a CVE: advisories, patches, fixed versions, packages, CWEs, exploits, timeline',
  request: { params: z.object({ id: cveIdPathParam() }) },
  responses: {
    200: { description: 'The enrichment sections (contract 2.6).', content: { 'application/json': { schema: EnrichmentSchema } } },
    ...errorResponses(400, 404, 503),
  },
});

function register(app: ApiApp, config: ApiConfig): void {
  app.openapi(enrichmentRoute, async (c) => {
    const { id } = c.req.valid('param');
    const snapshot = c.get('snapshot');
    // The build stored every CVE's answer: the bytes the query below would give.
    const doc = snapshot.records.docOf(id);
    if (doc !== undefined) return asRouteResponse(sendBody(c, snapshot.answers.forCve('enrichment', doc)));
    const enrichment = await findCveEnrichment(snapshot, id, {
      onSectionError: (section, err) => config.logger.warn({ err, section, cve_id: id }, 'enrichment section failed; served empty'),
    });
    if (!enrichment) throw notFound(`${id} is not in the snapshot.`);
    return asRouteResponse(sendJson(c, enrichment));
  });
}

export const enrichmentRoutes: RouteModule = { name: 'enrichment', register };
