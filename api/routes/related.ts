/**
 * `GET /api/v1/public/cves/{id}/related` (contract 2.5, 4.4): three lists of at most 10 related
 * CVEs and the `basis` of each. The build stores every CVE's answer (cli/build/answers.ts) as a
 * template and its siblings' briefs, spliced here (api/snapshot/related-splice.ts): the bytes
 * api/queries/related.ts gives, with every reason for an empty list established (the build
 * has no execution budget), so a basis is `unknown` only when related_keys could not be read.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { ApiApp, ApiConfig, RouteModule } from '../http/context.ts';
import { notFound } from '../http/errors.ts';
import { cveIdPathParam } from '../http/params.ts';
import { asRouteResponse, sendBody, sendJson, shapedAnswer } from '../http/respond.ts';
import { findRelatedCves, RELATED_LIST_MAX, SHARED_KEYS_SHOWN } from '../queries/related.ts';
import { errorResponses } from './cves-schemas.ts';
import { CveBriefSchema, PUBLIC_BASE } from './resource-common.ts';

const BASIS_DESCRIPTION =
  '`ok` populated; `no_data` the CVE has no keys of this kind; `no_siblings` no other CVE shares them; `no_specific_key` (same_product) shared only through packages carried by too many CVEs to be evidence; `capped` (same_vendor, same_cwe) shared only through keys beyond the first 50 read; `unknown` the reason could not be established (the snapshot\'s key table could not be read; the lists are then empty).';
const BasisSchema = z.enum(['ok', 'no_data', 'no_siblings', 'no_specific_key', 'capped', 'unknown']);
// Contract 2.5: `no_specific_key` is same_product's only, `capped` same_vendor's and same_cwe's only.
const ProductBasis = BasisSchema.exclude(['capped']).openapi({ description: BASIS_DESCRIPTION });
const KeyedBasis = BasisSchema.exclude(['no_specific_key']).openapi({ description: BASIS_DESCRIPTION });

const shared = {
  shared_keys: z.array(z.string()).max(SHARED_KEYS_SHOWN).openapi({ description: 'Keys shared with this CVE, most telling first (at most 10): `pkg:<ecosystem>/<name>`, `cpe:<vendor>:<product>`, `<vendor>/<advisory_id>` or a CWE id.' }),
  shared_count: z.number().int().openapi({ description: 'How many keys are shared.' }),
};

const RelatedSchema = z
  .object({
    cve_id: z.string(),
    // At most 10 entries each (contract 2.5).
    same_product: z
      .array(CveBriefSchema.extend({ ...shared, key_cve_count: z.number().int().openapi({ description: 'CVEs carrying the most specific shared key (the order of the list).' }) }))
      .max(RELATED_LIST_MAX),
    same_vendor: z.array(CveBriefSchema.extend(shared)).max(RELATED_LIST_MAX),
    same_cwe: z
      .array(CveBriefSchema.extend({ ...shared, days_apart: z.number().int().nullable().openapi({ description: 'UTC calendar days between the publication dates (the order of the list).' }) }))
      .max(RELATED_LIST_MAX),
    basis: z.object({ same_product: ProductBasis, same_vendor: KeyedBasis, same_cwe: KeyedBasis }),
  })
  .openapi('RelatedCves');

const relatedRoute = createRoute({
  operationId: 'getCveRelated',
  method: 'get',
  path: `${PUBLIC_BASE}/cves/{id}/related`,
  tags: ['CVEs'],
  summary: 'Related CVEs: same product, same vendor advisory, same CWE',
  description:
    'At most 10 entries per list. `same_product`: most specific shared package first (fewest CVEs); `same_vendor`: most shared advisories first; `same_cwe`: nearest publication day first. Ties: higher service_score, then cve_id descending. Only active CVEs. `same_vendor` and `same_cwe` read the first 50 keys of the CVE.',
  request: { params: z.object({ id: cveIdPathParam() }) },
  responses: {
    200: { description: 'The three lists and their basis (contract 2.5).', content: { 'application/json': { schema: RelatedSchema } } },
    ...errorResponses(400, 404, 503),
  },
});

function register(app: ApiApp, config: ApiConfig): void {
  app.openapi(relatedRoute, async (c) => {
    const { id } = c.req.valid('param');
    const snapshot = c.get('snapshot');
    // The build stored every CVE's answer: the bytes the query below would give.
    const doc = snapshot.records.docOf(id);
    if (doc !== undefined) return asRouteResponse(sendBody(c, snapshot.answers.related(doc)));
    const related = await findRelatedCves(snapshot, id, { reasonBudgetMs: config.queryBudgetMs });
    if (!related) throw notFound(`${id} is not in the snapshot.`);
    // A basis the budget could not establish may be known on the next ask: not the final answer.
    return asRouteResponse(sendJson(c, related, shapedAnswer(c, Object.values(related.basis).includes('unknown'))));
  });
}

export const relatedRoutes: RouteModule = { name: 'related', register };
