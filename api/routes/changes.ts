/**
 * The change feed of the read API (PULSE §3): `GET /api/v1/public/changes` (filters, `since`,
 * keyset paging, newest first) and `GET /api/v1/public/cves/{id}/history` (one CVE's changes).
 * Both answer from the served snapshot's own history (changes.parquet, 90 days).
 */
import { createRoute, z } from '@hono/zod-openapi';
import { CHANGE_KINDS, type ChangeRow } from '../../lib/changes/model.ts';
import type { ApiApp, RouteModule } from '../http/context.ts';
import { notFound } from '../http/errors.ts';
import { cveIdPathParam } from '../http/params.ts';
import { asRouteResponse, sendJson } from '../http/respond.ts';
import { cveHistory, listChanges } from '../queries/changes.ts';
import { ChangeFeedQuery, encodeCursor, filterOfQuery } from './change-params.ts';
import { errorResponses } from './cves-schemas.ts';
import { PUBLIC_BASE, readingTables } from './resource-common.ts';

const TAG = 'Changes';

const JsonObject = z.record(z.string(), z.unknown());

export const ChangeSchema = z
  .object({
    change_id: z.string().openapi({ description: 'Stable: the same change has the same id on every replica (the SSE event id).' }),
    build_id: z.string().openapi({ description: 'The build that detected it.' }),
    detected_at: z.string().openapi({ format: 'date-time' }),
    subject_type: z.enum(['cve', 'advisory']),
    cve_id: z.string().nullable().openapi({ description: 'The CVE; for an advisory change the CVE it names, if any.' }),
    vendor: z.string().nullable().openapi({ description: "Advisory changes: the advisory's vendor (its source)." }),
    advisory_id: z.string().nullable(),
    kind: z.enum(CHANGE_KINDS),
    before: JsonObject.nullable().openapi({ description: 'The fields that changed, before (null for a new subject).' }),
    after: JsonObject.nullable().openapi({ description: 'The same fields after.' }),
    why: z.string().openapi({ description: 'One plain-English sentence: what changed and what it did to the score.' }),
    title: z.string().nullable(),
    service_severity: z.string().nullable(),
    service_score: z.number().nullable(),
    service_risk: z.number().nullable(),
    in_kev: z.boolean().nullable(),
    epss_score: z.number().nullable(),
    vendor_severity: z.string().nullable(),
    vendors: z.array(z.string()),
    products: z.array(z.string()),
    ecosystems: z.array(z.string()),
    packages: z.array(z.string()),
    cwe_ids: z.array(z.string()),
  })
  .openapi('Change');

const ChangePageSchema = z
  .object({
    snapshot: z.string().openapi({ description: 'The build id of the snapshot that answered.' }),
    limit: z.number().int(),
    changes: z.array(ChangeSchema),
    next_cursor: z.string().nullable().openapi({ description: 'Pass as `cursor` for the next page; null on the last one.' }),
  })
  .openapi('ChangePage');

const CveHistorySchema = z
  .object({ cve_id: z.string(), snapshot: z.string(), changes: z.array(ChangeSchema) })
  .openapi('CveHistory');

/** A change as the JSON API shows it: `before`/`after` as objects rather than JSON text. */
export function changeJson(row: ChangeRow): Record<string, unknown> {
  return { ...row, before: row.before === null ? null : JSON.parse(row.before), after: row.after === null ? null : JSON.parse(row.after) };
}

const listRoute = createRoute({
  method: 'get',
  path: `${PUBLIC_BASE}/changes`,
  tags: [TAG],
  summary: 'What changed, newest first',
  description:
    'Changes between consecutive snapshots over the last 90 days (PULSE §2): new CVEs and vendor advisories, KEV additions, EPSS crossings, score, risk, severity, CVSS and SSVC moves, rejections. Filters match the subject as recorded with the change. Page with `cursor` (keyset) or poll with `since`.',
  request: { query: ChangeFeedQuery },
  responses: {
    200: { description: 'One page of changes.', content: { 'application/json': { schema: ChangePageSchema } } },
    ...errorResponses(400, 503),
  },
});

const historyRoute = createRoute({
  method: 'get',
  path: `${PUBLIC_BASE}/cves/{id}/history`,
  tags: [TAG],
  summary: "One CVE's change history",
  description: 'Every change of the last 90 days whose subject is this CVE, or a vendor advisory naming it, newest first.',
  request: { params: z.object({ id: cveIdPathParam() }) },
  responses: {
    200: { description: 'The changes, newest first (empty when nothing changed in 90 days).', content: { 'application/json': { schema: CveHistorySchema } } },
    ...errorResponses(400, 404, 503),
  },
});

function register(app: ApiApp): void {
  app.openapi(listRoute, async (c) => {
    const query = c.req.valid('query');
    const snapshot = c.get('snapshot');
    const limit = query.limit ?? 50;
    const page = await readingTables(() =>
      listChanges(snapshot, {
        filter: filterOfQuery(query),
        limit,
        ...(query.since !== undefined ? { sinceMicros: query.since } : {}),
        ...(query.cursor !== undefined ? { after: query.cursor } : {}),
      }),
    );
    return asRouteResponse(
      sendJson(c, { snapshot: snapshot.buildId, limit, changes: page.changes.map(changeJson), next_cursor: page.next ? encodeCursor(page.next) : null }),
    );
  });

  app.openapi(historyRoute, async (c) => {
    const { id } = c.req.valid('param');
    const snapshot = c.get('snapshot');
    if (snapshot.records.docOf(id) === undefined) throw notFound(`${id} is not in snapshot ${snapshot.buildId}`);
    const changes = await readingTables(() => cveHistory(snapshot, id));
    return asRouteResponse(sendJson(c, { cve_id: id, snapshot: snapshot.buildId, changes: changes.map(changeJson) }));
  });
}

export const changesRoutes: RouteModule = { name: 'changes', register };
