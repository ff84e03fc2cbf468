/**
 * The query parameters of the change feed (`/api/v1/public/changes`), the Atom feed and the
 * stream (`/pulse/feeds/changes.atom`, `/pulse/stream`): one zod schema per parameter, read
 * into the ChangeFilter of lib/changes/model.ts, so the three read a filter the same way and a
 * malformed one is 400 INVALID_PARAMETER naming it everywhere.
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import {
  CHANGE_KINDS,
  FILTER_CWE_PATTERN,
  canonicalCwe,
  FILTER_TEXT_MAX,
  FILTER_TEXT_PATTERN,
  filterTextProblem,
  PRODUCT_NEEDS_VENDOR,
  SEARCH_TEXT_PATTERN,
  searchTextProblem,
  type ChangeFilter,
} from '../../lib/changes/model.ts';
import { firstIssue, invalidParameter } from '../http/errors.ts';
import { booleanParam, enumListParam, enumParam, integerParam, numberParam, queryParam, timestampParam } from '../http/params.ts';
import { buildTimeOf } from '../../lib/snapshot-layout.ts';
import type { ChangePosition } from '../queries/changes.ts';

/** A filter text parameter (see filterTextProblem; searchTextProblem for search): used trimmed. */
function textFilter(description: string, example?: string, problemOf = filterTextProblem, pattern = FILTER_TEXT_PATTERN) {
  const read = (raw: string): string => {
    const problem = problemOf(raw);
    if (problem !== null) throw new Error(problem);
    return raw.trim();
  };
  return queryParam(read, { description, maxLength: FILTER_TEXT_MAX, pattern, ...(example ? { example } : {}) });
}

const CWE = new RegExp(FILTER_CWE_PATTERN);

export const changeFilterParams = {
  kind: enumListParam(CHANGE_KINDS, { description: 'Kinds of change, comma-separated (PULSE §2).', example: 'kev_added,epss_crossed' }),
  vendor: textFilter('A whole vendor (key as products.parquet spells it: lower case, spaces as `_`). Advisory changes match their own vendor.', 'cisco'),
  product: textFilter('A product key of `vendor` (required with it).', 'adaptive_security_appliance_software'),
  ecosystem: textFilter('An OSV ecosystem (any case).', 'npm'),
  package: textFilter('A package name; with `ecosystem`, in that ecosystem.', 'lodash'),
  cwe: queryParam(
    (raw) => {
      if (!CWE.test(raw)) throw new Error('expected a CWE identifier such as CWE-79');
      return canonicalCwe(raw);
    },
    { description: 'A CWE identifier, any case (leading zeros of its number ignored: CWE-079 is CWE-79).', example: 'CWE-79', pattern: FILTER_CWE_PATTERN },
  ),
  search: textFilter('Words that must all occur in the subject id, title, why, vendors or products (at least one letter or digit).', 'remote code execution', searchTextProblem, SEARCH_TEXT_PATTERN),
  min_severity: enumParam(['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'] as const, {
    description: "Minimum service severity of the CVE (an advisory's own vendor severity for advisory changes).",
  }),
  min_risk: numberParam({ min: 0, max: 100, description: 'Minimum service risk (leaves advisory changes out).', example: 70 }),
  kev_only: booleanParam('Only CVEs listed in CISA KEV (leaves advisory changes out).'),
};

/** The cursor of `/changes`: the last change of a page, opaque to the client. */
export function encodeCursor(position: ChangePosition): string {
  return Buffer.from(`${position.build_id}|${position.change_id}`, 'utf8').toString('base64url');
}

export function decodeCursor(raw: string): ChangePosition {
  const text = Buffer.from(raw, 'base64url').toString('utf8');
  const m = /^([^|]+)\|([0-9a-f]{24})$/.exec(text);
  if (!m || buildTimeOf(m[1]!) === null) throw new Error('not a cursor this API returned (pass next_cursor as it is)');
  return { build_id: m[1]!, change_id: m[2]! };
}

export const changeFeedParams = {
  ...changeFilterParams,
  since: timestampParam('Only changes detected strictly after this time.', '2026-11-20T00:00:00Z'),
  cursor: queryParam(decodeCursor, { description: 'The `next_cursor` of the previous page.' }),
  limit: integerParam({ min: 1, max: 200, default: 50, description: 'Changes per page, 1-200.' }),
};

/**
 * A query schema holding the filter's parameters, with the rules between them
 * (lib/changes/model.ts): a product only with a vendor. Every query schema of a filter is made
 * with it, so the feed, the Atom feed, the stream and the subscribe page refuse alike.
 */
export function withFilterRules<S extends z.ZodObject<typeof changeFilterParams>>(schema: S): S {
  return schema.superRefine((query, ctx) => {
    if (query.product !== undefined && query.vendor === undefined) ctx.addIssue({ code: 'custom', path: ['product'], message: PRODUCT_NEEDS_VENDOR });
  });
}

export const ChangeFilterQuery = withFilterRules(z.object(changeFilterParams));
export const ChangeFeedQuery = withFilterRules(z.object(changeFeedParams));

type FilterQuery = z.output<typeof ChangeFilterQuery>;

/** The ChangeFilter of validated query parameters (members absent when not given). */
export function filterOfQuery(query: FilterQuery): ChangeFilter {
  const filter: ChangeFilter = {};
  if (query.kind) filter.kinds = query.kind;
  if (query.vendor !== undefined) filter.vendor = query.vendor;
  if (query.product !== undefined) filter.product = query.product;
  if (query.ecosystem !== undefined) filter.ecosystem = query.ecosystem;
  if (query.package !== undefined) filter.package = query.package;
  if (query.cwe !== undefined) filter.cwe = query.cwe;
  if (query.search !== undefined) filter.search = query.search;
  if (query.min_severity !== undefined) filter.min_severity = query.min_severity;
  if (query.min_risk !== undefined) filter.min_risk = query.min_risk;
  if (query.kev_only !== undefined) filter.kev_only = query.kev_only;
  return filter;
}

/**
 * Validates the query of a route outside the OpenAPI document (Atom, stream) with the same
 * schema: the first problem is 400 INVALID_PARAMETER naming the parameter, a repeated
 * parameter included.
 */
export function parseQuery<S extends z.ZodObject>(c: Context, schema: S): z.output<S> {
  const url = new URL(c.req.url);
  const raw: Record<string, string> = {};
  for (const name of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(name);
    // Own members only: `in` also finds toString, constructor or __proto__ on every object, and
    // refused those unknown parameters when sent twice (unknown parameters are ignored).
    if (values.length > 1 && Object.hasOwn(schema.shape, name)) throw invalidParameter(name, `${name}: given more than once`);
    raw[name] = values[0]!;
  }
  const result = schema.safeParse(raw);
  if (!result.success) {
    const { parameter, message } = firstIssue(result.error.issues, 'query');
    throw invalidParameter(parameter, message);
  }
  return result.data;
}
