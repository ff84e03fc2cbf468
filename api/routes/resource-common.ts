/**
 * What the resource route modules (related, references, enrichment, vendor advisories,
 * catalogues, KEV, shadow-AI radar) share beyond api/http: the public base path, the answer to a
 * snapshot table that could not be loaded, paging parameters, and the OpenAPI schema of the
 * short CVE form their lists embed.
 */
import { z } from '@hono/zod-openapi';
import { ApiError } from '../http/errors.ts';
import { integerParam } from '../http/params.ts';
import { TableUnavailableError } from '../queries/support.ts';

export const PUBLIC_BASE = '/api/v1/public';
export const MAX_LIMIT = 200;
export const DEFAULT_LIMIT = 50;

/**
 * Runs a query; a TableUnavailableError (the snapshot's table for this answer could not be
 * loaded) becomes 503 SNAPSHOT_TABLE_UNAVAILABLE naming the table, rather than an empty answer
 * that would read as "there are none".
 */
export async function readingTables<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof TableUnavailableError) {
      throw new ApiError(
        'SNAPSHOT_TABLE_UNAVAILABLE',
        `The snapshot's ${err.table} table could not be read; this answer is unavailable until the next snapshot is published.`,
        { table: err.table },
      );
    }
    throw err;
  }
}

export const pagingParams = {
  limit: integerParam({ min: 1, max: MAX_LIMIT, default: DEFAULT_LIMIT, description: `Rows per page, 1-${MAX_LIMIT}.` }),
  offset: integerParam({ min: 0, max: Number.MAX_SAFE_INTEGER, default: 0, description: 'Rows to skip.' }),
};

export const CveBriefSchema = z.object({
  cve_id: z.string(),
  published: z.string().nullable().openapi({ format: 'date-time' }),
  service_score: z.number().openapi({ description: 'A 0 placeholder when `score_assessed` is false (contract 2.2).' }),
  service_severity: z.enum(['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'NONE']),
  score_assessed: z.boolean(),
  severity: z.string().nullable().openapi({ description: "NVD's CVSS v3 label." }),
  description: z.string().nullable().openapi({ description: 'At most 200 characters; a cut text ends with "…".' }),
});

export const CveSummarySchema = CveBriefSchema.extend({
  last_modified: z.string().nullable().openapi({ format: 'date-time' }),
  service_risk: z.number(),
  cvss_v3_score: z.number(),
  max_cvss: z.number().nullable(),
  kev: z.boolean(),
  epss_score: z.number().nullable(),
  exploit_poc_available: z.boolean(),
});
