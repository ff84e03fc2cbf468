/**
 * `GET /api/v1/public/cves/{id}/references` (contract 2.7, 4.5): every reference of the CVE with
 * its flags and cross-walks, and the exploit records no reference shows.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { ApiApp, RouteModule } from '../http/context.ts';
import { notFound } from '../http/errors.ts';
import { cveIdPathParam } from '../http/params.ts';
import { asRouteResponse, sendBody, sendJson } from '../http/respond.ts';
import { findCveReferences } from '../queries/references.ts';
import { errorResponses } from './cves-schemas.ts';
import { PUBLIC_BASE } from './resource-common.ts';

export const ExploitRecordSchema = z
  .object({
    source: z.string().openapi({ description: 'exploitdb, metasploit, nuclei, poc-in-github.' }),
    exploit_id: z.string().nullable(),
    url: z.string().nullable(),
    title: z.string().nullable(),
    published: z.string().nullable().openapi({ format: 'date-time' }),
    verified: z.boolean().nullable(),
  })
  .openapi('ExploitRecord');

const ReferencesSchema = z
  .object({
    cve_id: z.string(),
    references: z.array(
      z.object({
        url: z.string(),
        name: z.string().nullable(),
        tags: z.array(z.string()).openapi({ description: 'Tags of every feed in one spelling (`vendor-advisory`, `patch`, `exploit`, …).' }),
        sources: z.array(z.string()).openapi({ description: 'Feeds and CNA/NVD source identifiers that list the URL, and the GHSA ids of the GitHub advisories that list it.' }),
        is_patch: z.boolean(),
        is_exploit: z.boolean(),
        is_vendor_advisory: z.boolean(),
        vendor_advisory: z
          .object({ vendor: z.string(), advisory_id: z.string(), api_path: z.string() })
          .nullable()
          .openapi({ description: 'The vendor advisory this URL is, when the service holds it.' }),
        ghsa_id: z.string().nullable(),
        exploit_source: z.string().nullable().openapi({ description: 'The exploit database that lists this URL.' }),
      }),
    ),
    exploits: z.array(ExploitRecordSchema).openapi({ description: 'Exploit records whose URL is not among `references`.' }),
    failed_sections: z.array(z.enum(['references', 'exploits'])).openapi({ description: 'Parts whose snapshot table could not be read (served empty).' }),
  })
  .openapi('CveReferences');

const referencesRoute = createRoute({
  operationId: 'getCveReferences',
  method: 'get',
  path: `${PUBLIC_BASE}/cves/{id}/references`,
  tags: ['CVEs'],
  summary: 'References of a CVE with patch, exploit and vendor-advisory cross-walks',
  description: 'Vendor advisories first, then patches, exploits, the rest by URL.',
  request: { params: z.object({ id: cveIdPathParam() }) },
  responses: {
    200: { description: 'Per-reference enrichment (contract 2.7).', content: { 'application/json': { schema: ReferencesSchema } } },
    ...errorResponses(400, 404, 503),
  },
});

function register(app: ApiApp): void {
  app.openapi(referencesRoute, async (c) => {
    const { id } = c.req.valid('param');
    const snapshot = c.get('snapshot');
    // The build stored every CVE's answer: the bytes the query below would give.
    const doc = snapshot.records.docOf(id);
    if (doc !== undefined) return asRouteResponse(sendBody(c, snapshot.answers.forCve('references', doc)));
    const references = await findCveReferences(snapshot, id);
    if (!references) throw notFound(`${id} is not in the snapshot.`);
    return asRouteResponse(sendJson(c, references));
  });
}

export const referencesRoutes: RouteModule = { name: 'references', register };
