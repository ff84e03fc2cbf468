/**
 * Zod schemas of the `/cves` endpoints: the query parameters (they validate requests and
 * describe them in /api/v1/openapi.json) and the response shapes (documentation only: bodies
 * are precomputed bytes, never validated on the way out).
 */
import { z } from '@hono/zod-openapi';
import { YEAR_MAX, YEAR_MIN } from '../../lib/calendar.ts';
import {
  booleanParam,
  falseOnlyParam,
  CVE_ID_PATTERN,
  enumListParam,
  enumParam,
  integerParam,
  NOT_BLANK,
  NOT_BLANK_PATTERN,
  numberParam,
  queryParam,
  parseCveId,
  textParam,
  timestampParam,
} from '../http/params.ts';
import { ERROR_STATUS, type ErrorCode } from '../http/errors.ts';
import { SEVERITIES, STATUSES } from '../queries/cves-filter.ts';
import { SORTS } from '../queries/cves-list.ts';
import { SEARCH_PATTERN } from '../search/parse.ts';
import { codePointsExceed } from '../../lib/code-points.ts';

export const MAX_LIMIT = 200;
export const DEFAULT_LIMIT = 50;
export const MAX_SEARCH_CHARS = 500;

/** Filters shared by the list, the vendor match and (partly) the export. */
const filterParams = {
  severity: enumListParam(SEVERITIES, {
    description:
      'Comma-separated severities (CRITICAL, HIGH, MEDIUM, LOW, NONE; any case). Filters NVD\'s CVSS v3 label (`severity`) by default; see `severity_basis`.',
    example: 'CRITICAL,HIGH',
  }),
  severity_basis: enumParam(['nvd', 'svc'] as const, {
    description:
      '`svc`: `severity` filters the service severity (`service_severity`) instead, the basis of the summary buckets and the only way to reach CVEs never rated under CVSS v3. `nvd` (default): NVD\'s v3 label.',
    default: 'nvd',
  }),
  min_cvss: numberParam({
    min: 0,
    max: 10,
    description: 'Lowest `max_cvss`, the highest CVSS held for the CVE (v3.x, v4.0 or v2.0): a v2-only 10.0 matches. CVEs with no CVSS at all never match.',
    example: 9,
  }),
  kev_only: booleanParam('true: only CVEs listed in the CISA KEV catalog.'),
  year: integerParam({ min: YEAR_MIN, max: YEAR_MAX, description: 'UTC publication year.', example: 2024 }),
};

const listParams = {
  limit: integerParam({ min: 1, max: MAX_LIMIT, default: DEFAULT_LIMIT, description: `Rows per page, 1-${MAX_LIMIT}.` }),
  offset: integerParam({ min: 0, max: Number.MAX_SAFE_INTEGER, default: 0, description: 'Rows to skip (counted from the last row when `reverse=true`).' }),
  sort: enumParam(SORTS, {
    description:
      'Order, always descending, ties by `cve_id` descending: `published` (default), `epss` (EPSS probability, CVEs without EPSS last), `severity` (`service_score`), `cvss_v3_score`.',
    default: 'published',
  }),
  ...filterParams,
  search: textParam({
    max: MAX_SEARCH_CHARS,
    pattern: SEARCH_PATTERN,
    description:
      'Free text, any case, over id, title, description, vendors, products, packages and advisory titles. Words are a conjunction (all must occur); a quoted string or a hyphenated compound (`use-after-free`) is a phrase. At most 16 words; at least one letter or digit (blank: no search).',
    example: 'linux kernel "use after free"',
  }),
  since: timestampParam('Last modified at or after this time (`YYYY-MM-DD` or RFC 3339; UTC when no offset).'),
  until: timestampParam('Last modified before this time (`YYYY-MM-DD` or RFC 3339; UTC when no offset).'),
  status: enumParam(STATUSES, {
    description: '`active` (default): rejected CVEs hidden; `rejected`: only those; `all`.',
    default: 'active',
  }),
  skip_count: booleanParam('1: do not count (`total_counted` false); the response carries the keyset cursor of the next page.'),
  reverse: booleanParam(
    'true: read the default listing from its far end (offset and limit count back from the last row; the page keeps the usual order). Only without filters, search, cursor, and with sort `published` and status `active`; otherwise 400 REVERSE_NOT_ALLOWED.',
  ),
  before_published: timestampParam(
    'Keyset cursor, with `before_cve_id`: rows after this (published, cve_id) in published order. Send the previous page\'s `next_published`.',
    '2024-04-12T08:15:06.230Z',
  ),
  before_cve_id: queryParam(parseCveId, {
    pattern: CVE_ID_PATTERN,
    description: 'Keyset cursor, with `before_published`: send the previous page\'s `next_cve_id`.',
    example: 'CVE-2024-3400',
  }),
};

export const CveListQuery = z.object({
  ...listParams,
  vendor: z
    .string()
    .optional()
    // `not: {}`: no value is valid, which is the truth (every value is refused), so a client
    // that generates requests from the document leaves it out.
    .openapi({ description: 'Not allowed here: 400 VENDOR_FILTER_NOT_ALLOWED. Filter by vendor with /api/v1/public/cves/match.', not: {} }),
});

/** At most 200 characters counted as JSON Schema's maxLength counts them: by code point. */
const MATCH_TEXT_MAX = 200;
const matchText = () => z.string().refine((s) => !codePointsExceed(s, MATCH_TEXT_MAX), `at most ${MATCH_TEXT_MAX} characters`);

export const CveMatchQuery = z.object({
  vendor: matchText()
    .refine((s) => NOT_BLANK.test(s), 'empty')
    .openapi({
      description: 'Vendor, any case; spaces match underscores (CPE spelling: `palo alto networks` = `palo_alto_networks`).',
      example: 'linux',
      maxLength: MATCH_TEXT_MAX,
      pattern: NOT_BLANK_PATTERN,
    }),
  product: matchText()
    .optional()
    .openapi({ description: 'Product of that vendor, spelled like `vendor`. Absent or blank: every product of the vendor.', example: 'linux_kernel', maxLength: MATCH_TEXT_MAX }),
  ...listParams,
  reverse: falseOnlyParam('Not served here: `reverse=true` is refused with 400 REVERSE_NOT_ALLOWED (the reverse reading is of the unfiltered listing, contract 4.1 rule 3).'),
});

export const CveExportQuery = z.object(filterParams);

export const ErrorSchema = z
  .object({
    code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
    message: z.string(),
    parameter: z.string().optional().openapi({ description: 'The parameter at fault (INVALID_PARAMETER, REVERSE_NOT_ALLOWED, VENDOR_FILTER_NOT_ALLOWED).' }),
    // The other members some errors carry (docs/api.md, Errors), so a client reads them typed.
    see: z.string().optional().openapi({ description: 'Where to ask instead (VENDOR_FILTER_NOT_ALLOWED: `/api/v1/public/cves/match`).' }),
    method: z.string().optional().openapi({ description: 'The method refused (METHOD_NOT_ALLOWED).' }),
    allowed: z.array(z.string()).optional().openapi({ description: 'The methods the path takes (METHOD_NOT_ALLOWED), as in `Allow`.' }),
    reason: z.string().optional().openapi({ description: 'Why the request could not be read, in the HTTP parser\'s words (MALFORMED_REQUEST).' }),
    table: z.string().optional().openapi({ description: 'The snapshot table that could not be read (SNAPSHOT_TABLE_UNAVAILABLE).' }),
    supported: z.array(z.string()).optional().openapi({ description: 'The ecosystems a package lookup takes, as OSV spells them (INVALID_PARAMETER on `/packages`: an ecosystem or purl type it does not take).' }),
    value: z.string().optional().openapi({ description: 'The list item refused, as sent (INVALID_PARAMETER on `/cves/batch`: an id that is no CVE identifier).' }),
  })
  .openapi('Error');

/** The members of `score_factors` the contract names (2.2), each always present. */
const ScoreFactorsSchema = z
  .looseObject({
    rule_triggered: z.array(z.string()).openapi({ description: 'The scoring rules that set `service_score`, in the order applied.' }),
    sources_contributing: z.array(z.string()),
    base_score: z.number().nullable(),
    cvss: z.looseObject({}).openapi({ description: 'The CVSS input: basis, version, score, vector, assessor, provider, and NVD\'s and the CNA\'s v3 scores.' }),
    epss: z.looseObject({}).openapi({ description: 'The EPSS input: probability, percentile, score date, model version, escalation.' }),
    kev: z.looseObject({}).openapi({ description: 'The CISA KEV input: listed, date added, due date, ransomware use.' }),
    svc_kev: z.looseObject({}).openapi({ description: 'Known exploitation beyond KEV: exploited, SSVC exploitation active, vendor evidence.' }),
    ssvc: z.looseObject({}).openapi({ description: 'The SSVC decision points and the decision.' }),
    svc_risk: z.looseObject({
      risk: z.number().min(0).max(100),
      severity_norm: z.number(),
      exploitation: z.number(),
      automatable: z.number(),
      weights: z.looseObject({ severity: z.number(), exploitation: z.number(), automatable: z.number() }),
      about: z.string().openapi({ description: 'What `service_risk` is, in plain English.' }),
      summary: z.string().openapi({ description: 'This CVE\'s risk, term by term, in plain English.' }),
    }),
  })
  .openapi({ description: 'Evidence behind the scores (contract 2.2).' });

export const CveRecordSchema = z
  .looseObject({
    cve_id: z.string(),
    published: z.string().openapi({ format: 'date-time' }),
    last_modified: z.string().openapi({ format: 'date-time' }),
    status: z.enum(['active', 'rejected']),
    state: z.string().openapi({ description: 'The CVE List state as published, upper-cased (`PUBLISHED`, `REJECTED`); where the CVE List has no record, `REJECTED` when NVD says Rejected, else `PUBLISHED`.' }),
    vuln_status: z.string().nullable().openapi({ description: 'NVD\'s analysis status (`Analyzed`, `Awaiting Analysis`, …); null when NVD holds no record.' }),
    assigner: z.string().nullable().openapi({ description: 'The CNA: its CVE List short name, else NVD\'s source identifier.' }),
    title: z.string().nullable().openapi({ description: 'The CNA\'s title (CVE List); null when none.' }),
    description: z.string().nullable(),
    cve_tags: z.array(z.string()).openapi({ description: 'NVD\'s and the CNA\'s tags (`disputed`, `unsupported-when-assigned`, …).' }),
    severity: z.enum(SEVERITIES).openapi({ description: 'NVD CVSS v3 label of the chosen v3 metric; NONE when there is none.' }),
    cvss_v3_score: z.number().openapi({ description: '0 when never rated under CVSS v3.' }),
    cvss_v3_vector: z.string().nullable(),
    cvss_v3_version: z.string().nullable().openapi({ description: '`3.0` or `3.1`; null when never rated under CVSS v3.' }),
    cvss_v3_source: z.enum(['nvd', 'cna', 'adp']).nullable().openapi({ description: 'Whose v3 metric is in force (contract 1.6: the fresher of NVD\'s and the CNA\'s).' }),
    cvss_v4_score: z.number().openapi({ description: '0 when never rated under CVSS v4.' }),
    cvss_v4_vector: z.string().nullable(),
    cvss_v4_severity: z.enum(SEVERITIES).nullable(),
    cvss_v2_score: z.number(),
    cvss_v2_severity: z.enum(['LOW', 'MEDIUM', 'HIGH']).nullable(),
    cvss_v2_vector: z.string().nullable(),
    max_cvss: z.number().nullable().openapi({ description: 'Highest CVSS held (v3.x, v4.0, v2.0); null when none.' }),
    epss_score: z.number().nullable(),
    epss_percentile: z.number().min(0).max(1).nullable(),
    epss_date: z.string().nullable().openapi({ format: 'date' }),
    kev: z.boolean(),
    kev_added_date: z.string().nullable().openapi({ format: 'date' }),
    kev_due_date: z.string().nullable().openapi({ format: 'date' }),
    kev_known_ransomware_campaign_use: z.string().nullable().openapi({ description: 'As the KEV catalog states it (`Known`, `Unknown`).' }),
    kev_required_action: z.string().nullable(),
    svc_kev: z.boolean().openapi({ description: 'Known exploited by the service\'s own evidence, whatever KEV says: CISA ADP SSVC exploitation `active`, or a vendor advisory saying so (`score_factors.svc_kev`).' }),
    exploit_poc_available: z.boolean(),
    exploit_count: z.number().int().min(0).openapi({ description: 'Verified exploit records (exploit databases, attack frameworks, PoC repositories, scanner templates).' }),
    cwe_ids: z.array(z.string()),
    ghsa_ids: z.array(z.string()),
    vendor_advisories: z
      .array(z.object({ vendor: z.string(), advisory_id: z.string() }))
      .openapi({ description: 'Vendor advisories naming the CVE; each is at `/api/v1/public/vendor-advisories/{vendor}/{advisory_id}`.' }),
    service_score: z.number().min(0).max(10).openapi({ description: 'CVSS-comparable severity, 0-10; a 0 placeholder when `score_assessed` is false.' }),
    score_assessed: z.boolean(),
    score_unassessed_reason: z.enum(['no_signal', 'rejected']).optional().openapi({ description: 'Present exactly when `score_assessed` is false.' }),
    service_severity: z.enum(['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'NONE']),
    service_risk: z.number().min(0).max(100),
    service_ssvc_decision: z.enum(['Act', 'Attend', 'Track*', 'Track']),
    score_confidence: z.enum(['HIGH', 'MEDIUM', 'LOW', 'NONE']),
    vendor_severity: z.enum(['CRITICAL', 'HIGH', 'MEDIUM', 'LOW']).nullable().openapi({ description: 'The vendor\'s own band (its taxonomy, not a CVSS band).' }),
    vendor_severity_source: z.string().nullable(),
    vendor_severity_evidence: z.string().nullable(),
    score_factors: ScoreFactorsSchema,
  })
  .openapi('CveRecord', {
    description: 'The merged CVE record (contract 2.1, 2.2), every member it carries (docs/api.md).',
    // Contract 2.2: `score_unassessed_reason` is present only when not assessed, absent when assessed.
    oneOf: [
      { properties: { score_assessed: { const: true } }, not: { required: ['score_unassessed_reason'] } },
      { properties: { score_assessed: { const: false } }, required: ['score_unassessed_reason'] },
    ],
  });

/** The members of a list response (contract 2.3), shared by the list and the vendor match. */
const listShape = {
  cves: z.array(CveRecordSchema).max(MAX_LIMIT),
  total: z.number().int().min(0),
  total_is_lower_bound: z.boolean(),
  total_counted: z.boolean().openapi({ description: 'false: no count is in hand, and `total` is 0 (contract 2.3).' }),
  search_relaxed: z.boolean(),
  reverse_available: z.boolean(),
  reverse: z.literal(true).optional(),
  next_published: z.string().nullable().optional().openapi({ format: 'date-time', description: 'Send as `before_published` for the next page; null when no row follows.' }),
  next_cve_id: z.string().nullable().optional().openapi({ pattern: CVE_ID_PATTERN, description: 'Send as `before_cve_id` for the next page; null when no row follows.' }),
  limit: z.number().int().min(1).max(MAX_LIMIT),
  offset: z.number().int().min(0),
};

/**
 * Rules between members of a list response, for both list schemas (given to each: a schema made
 * with `.extend` would inherit them in place of its own allOf).
 */
type SchemaList = NonNullable<NonNullable<Parameters<ReturnType<typeof z.object>['openapi']>[1]>['allOf']>;
const LIST_RULES: SchemaList = [
  // Contract 2.3: total_counted false means total is 0.
  { anyOf: [{ properties: { total_counted: { const: true } } }, { properties: { total: { const: 0 } } }] },
  // The cursor pair comes together (with skip_count or the cursor) or not at all.
  { anyOf: [{ required: ['next_published', 'next_cve_id'] }, { not: { anyOf: [{ required: ['next_published'] }, { required: ['next_cve_id'] }] } }] },
];

export const CveListSchema = z.object(listShape).openapi('CveList', { allOf: LIST_RULES });

export const CveMatchSchema = z
  .object({
    ...listShape,
    vendor: z.string().openapi({ description: 'The vendor key matched (normalised).' }),
    product: z.string().nullable().openapi({ description: 'The product key matched (normalised), null for every product.' }),
  })
  .openapi('CveMatchList', { allOf: LIST_RULES });

const counts = {
  total: z.number().int(),
  critical: z.number().int(),
  high: z.number().int(),
  medium: z.number().int(),
  low: z.number().int(),
  unscored: z.number().int(),
  kev: z.number().int(),
};

export const SummarySchema = z
  .looseObject({
    ...counts,
    nvd_critical: z.number().int(),
    nvd_high: z.number().int(),
    nvd_medium: z.number().int(),
    nvd_low: z.number().int(),
    nvd_none: z.number().int(),
    svc_kev: z.number().int(),
    exploit_poc_available: z.number().int(),
    v2_only: z.number().int(),
    no_signal: z.number().int(),
    rejected: z.number().int(),
    newest_published: z.string().nullable(),
    newest_modified: z.string().nullable(),
    snapshot: z.object({ build_id: z.string(), built_at: z.string(), schema_version: z.number(), cves: z.number().int() }),
    sources: z.record(
      z.string(),
      z.looseObject({
        records: z.number(),
        files: z.number().int(),
        newest_record: z.string().nullable().openapi({ description: 'Newest record time the source holds (a date or a date-time, as the source gives it); null when it dates none.' }),
        healthy: z.boolean(),
        detail: z.looseObject({}).openapi({ description: 'What the source adds (e.g. the EPSS model version).' }),
        fetch: z.looseObject({}).nullable().openapi({ description: 'The fetcher\'s last status record; null when never fetched here.' }),
      }),
    ),
    poller: z.looseObject({ status: z.string() }),
  })
  .openapi('Summary');

const TrendPeriodSchema = z
  .object({
    period_start: z.string(),
    period_end: z.string(),
    ...counts,
    delta: z.number().int(),
    delta_pct: z.number().nullable(),
    complete: z.boolean(),
  })
  .openapi('TrendPeriod');

export const TrendsSchema = z
  .object({
    anchor: z.object({ newest_published: z.string(), week_start: z.string(), month_start: z.string() }).nullable(),
    weekly: z.array(TrendPeriodSchema),
    monthly: z.array(TrendPeriodSchema),
    week_over_week: z
      .object({
        week_start: z.string(),
        previous_week_start: z.string(),
        total: z.number().int(),
        previous_total: z.number().int(),
        delta: z.number().int(),
        delta_pct: z.number().nullable(),
      })
      .nullable(),
    severity_distribution: z.looseObject({ basis: z.literal('service_severity'), period_start: z.string(), period_end: z.string(), ...counts }).nullable(),
  })
  .openapi('Trends');

/** Error responses every data endpoint may give, for the OpenAPI document. */
export function errorResponses(...statuses: (400 | 404 | 503)[]) {
  const describe: Record<number, string> = {
    400: 'A parameter is malformed or not allowed (INVALID_PARAMETER, VENDOR_FILTER_NOT_ALLOWED, REVERSE_NOT_ALLOWED); or, answered before any routing, the request is not valid HTTP (MALFORMED_REQUEST).',
    404: 'No such record (NOT_FOUND).',
    503: 'No snapshot is published yet (NO_SNAPSHOT), or a snapshot table this answer needs could not be read (SNAPSHOT_TABLE_UNAVAILABLE, naming it in `table`).',
  };
  return Object.fromEntries(
    statuses.map((s) => [s, { description: describe[s]!, content: { 'application/json': { schema: ErrorSchema } } }]),
  ) as Record<number, { description: string; content: { 'application/json': { schema: typeof ErrorSchema } } }>;
}
