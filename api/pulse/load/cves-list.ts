/**
 * `/pulse/cves`: the API's list filters and sorts (the same zod schemas, the same
 * interpretation, the same query module), paged by keyset in published order (forward with
 * the API's cursor, back with the trail of cursors the links carry) and by offset in the other
 * sorts, where the API has no keyset. A malformed filter is a PageError naming it.
 */
import type { Context } from 'hono';
import type { z } from '@hono/zod-openapi';
import { ApiError, firstIssue } from '../../http/errors.ts';
import { enumValueOf, isTrue } from '../../http/params.ts';
import { formatMicros } from '../../http/timestamps.ts';
import { STATUSES, type Status } from '../../queries/cves-filter.ts';
import { listCves, SORTS, type ListResult } from '../../queries/cves-list.ts';
import { interpretList, type ListQuery } from '../../routes/cves-params.ts';
import { CveListQuery, CveMatchQuery } from '../../routes/cves-schemas.ts';
import { productKey, vendorScope } from '../../routes/cves.ts';
import type { ServingSnapshot } from '../../snapshot/serving.ts';
import { formFields, refuseFilter } from './form-fields.ts';

/** Parameters the page reads; anything else in the query string is ignored. */
export const LIST_PARAMS = [
  'search', 'severity', 'severity_basis', 'min_cvss', 'kev_only', 'year', 'since', 'until', 'status', 'sort', 'limit',
  'offset', 'vendor', 'product', 'before_published', 'before_cve_id',
] as const;
export const PAGE_LIMIT = 25;
/** Cursors of earlier pages kept in the links (older ones fall back to "first page"). */
export const TRAIL_MAX = 20;

export interface Cursor {
  published: string;
  cve_id: string;
}

/** One CVE of the page, as the API's record JSON holds it (the fields the page shows). */
export interface ListedCve {
  cve_id: string;
  published: string | null;
  description: string | null;
  title: string | null;
  status: string;
  service_score: number;
  service_severity: string;
  service_risk: number;
  score_assessed: boolean;
  kev: boolean;
  epss_score: number | null;
  exploit_poc_available: boolean;
  cvss_v3_score: number;
}

/**
 * The form's choices as the API reads them (any case; kev_only 1, yes or true), defaults where
 * none or none valid: a link's `sort=EPSS` or `kev_only=1` is shown chosen, or the form would
 * show the defaults over results filtered otherwise, and Apply would drop them.
 */
export interface Choices {
  severityBasis: 'nvd' | 'svc';
  status: Status;
  sort: (typeof SORTS)[number];
  kevOnly: boolean;
}

function choicesOf(form: Record<string, string>): Choices {
  return {
    severityBasis: enumValueOf(['nvd', 'svc'] as const, form.severity_basis) ?? 'nvd',
    status: enumValueOf(STATUSES, form.status) ?? 'active',
    sort: enumValueOf(SORTS, form.sort) ?? 'published',
    // A refused value shows unticked (and marked).
    kevOnly: isTrue(form.kev_only),
  };
}

export interface CveListView {
  /** The form's values as sent (empty fields dropped). */
  form: Record<string, string>;
  choices: Choices;
  /** Severities ticked. */
  severities: string[];
  cves: ListedCve[];
  total: number | null;
  totalIsLowerBound: boolean;
  searchRelaxed: boolean;
  /** Query strings (without `?`) of the neighbouring pages; null where there is none. */
  next: string | null;
  prev: string | null;
  first: string | null;
  /** 1-based position of the page's first row when known (offset paging, first cursor page). */
  firstRow: number | null;
  pageNumber: number | null;
  /**
   * The page is past the end of the results (an offset or a cursor beyond the last row: a link
   * edited by hand, or kept while the results shrank); `total` says how many there are.
   */
  pastEnd: boolean;
  /** The query of the last page (by offset) when the total is known, else null. */
  last: string | null;
  /** Its number, when `last` is given. */
  lastPageNumber: number | null;
}

/**
 * The parameters that are fields of the filter form: a refusal of one of them shows the form
 * again, as typed, with the field marked (the others — offset, the cursor, the trail — come from
 * the page links, and are answered with the error page).
 */
export const FORM_FIELDS = ['search', 'severity', 'severity_basis', 'min_cvss', 'year', 'since', 'until', 'vendor', 'product', 'status', 'sort', 'limit', 'kev_only'] as const;

export function isFormField(parameter: string | undefined): parameter is (typeof FORM_FIELDS)[number] {
  return (FORM_FIELDS as readonly (string | undefined)[]).includes(parameter);
}

/** The query as the form sent it: empty fields dropped, ticked severities joined. */
function formValues(c: Context): Record<string, string> {
  return formFields(c.req.queries(), [...LIST_PARAMS, 'back'], 'severity');
}

function parseTrail(raw: string | undefined): (Cursor | null)[] {
  if (raw === undefined) return [];
  return raw.split(',').map((entry) => {
    if (entry === '-') return null;
    const at = entry.lastIndexOf('~');
    const published = entry.slice(0, at);
    const cveId = entry.slice(at + 1);
    if (at <= 0 || !/^CVE-\d{4}-\d{4,19}$/.test(cveId) || Number.isNaN(Date.parse(published))) {
      refuseFilter('back', 'back: not a trail of page cursors (follow the page links instead of editing it)');
    }
    return { published, cve_id: cveId };
  });
}

function trailText(trail: (Cursor | null)[]): string {
  return trail.map((c) => (c === null ? '-' : `${c.published}~${c.cve_id}`)).join(',');
}

function queryString(base: Record<string, string>, extra: Record<string, string | null>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(base)) if (!(k in extra)) params.set(k, v);
  for (const [k, v] of Object.entries(extra)) if (v !== null) params.set(k, v);
  return params.toString();
}

function validated(form: Record<string, string>): ListQuery & { vendor?: string; product?: string } {
  const { back: _back, vendor, product, ...rest } = form;
  const schema = vendor !== undefined ? CveMatchQuery : CveListQuery;
  const input = vendor !== undefined ? { ...rest, vendor, ...(product !== undefined ? { product } : {}) } : rest;
  if (vendor === undefined && product !== undefined) refuseFilter('product', 'product: name a vendor too (a product is matched within its vendor)');
  const parsed = (schema as z.ZodType).safeParse(input);
  if (!parsed.success) {
    const { parameter, message } = firstIssue(parsed.error.issues, 'query');
    refuseFilter(parameter, message);
  }
  return parsed.data as ListQuery & { vendor?: string; product?: string };
}

function recordOf(snapshot: ServingSnapshot, doc: number): ListedCve {
  return JSON.parse(snapshot.records.bytes(doc).toString('utf8')) as ListedCve;
}

/**
 * The view of a refused query: the form's fields as typed (a field sent twice shows its first
 * value), no results and no page links.
 */
export function refusedCveListView(c: Context): CveListView {
  const all = c.req.queries();
  const form: Record<string, string> = {};
  for (const name of FORM_FIELDS) {
    const values = (all[name] ?? []).map((v) => v.trim()).filter((v) => v !== '');
    if (values.length > 0) form[name] = name === 'severity' ? values.join(',') : values[0]!;
  }
  const severities = (form.severity ?? '').split(',').map((s) => s.toUpperCase());
  return {
    form,
    choices: choicesOf(form),
    severities,
    cves: [],
    total: null,
    totalIsLowerBound: false,
    searchRelaxed: false,
    next: null,
    prev: null,
    first: null,
    firstRow: null,
    pageNumber: null,
    pastEnd: false,
    last: null,
    lastPageNumber: null,
  };
}

export async function loadCveList(snapshot: ServingSnapshot, c: Context, budgetMs: number): Promise<CveListView> {
  const form = formValues(c);
  const query = validated(form);
  const trail = parseTrail(form.back);
  const limit = query.limit ?? PAGE_LIMIT;
  const sort = query.sort ?? 'published';
  const keyset = sort === 'published';
  if (!keyset && form.before_published !== undefined) refuseFilter('sort', `sort: pages of the ${sort} order are numbered, not keyed by a cursor`);

  const cursor: Cursor | null = form.before_published !== undefined ? { published: form.before_published, cve_id: form.before_cve_id! } : null;
  // The page links never carry both; a page after a cursor and an offset has no number, and its
  // way back would lead to another page.
  if (cursor !== null && form.offset !== undefined && form.offset !== '0') refuseFilter('offset', 'offset: a page reached by its links takes no offset (follow the page links, or start again from the first page)');

  let request;
  try {
    request = interpretList({ ...query, limit }, (name) => form[name] !== undefined, query.vendor !== undefined ? 'vendor' : undefined).request;
  } catch (err) {
    if (err instanceof ApiError) refuseFilter(String(err.extra.parameter ?? 'query'), err.message);
    throw err;
  }
  if (query.vendor !== undefined) {
    const vendor = productKey(query.vendor);
    if (vendor === '') refuseFilter('vendor', 'vendor: empty');
    request.scope = vendorScope(vendor, query.product === undefined ? null : productKey(query.product));
  }
  let result: ListResult;
  try {
    result = await listCves(snapshot, request, performance.now() + budgetMs);
  } catch (err) {
    if (err instanceof ApiError) refuseFilter(String(err.extra.parameter ?? 'query'), err.message);
    throw err;
  }

  const cves = result.docs.map((doc) => recordOf(snapshot, doc));
  const offset = request.offset;
  const counted = result.totalCounted;
  const hasMore =
    result.next !== undefined
      ? result.next !== null
      : counted
        ? result.totalIsLowerBound || offset + cves.length < result.total
        : cves.length === limit;

  const pageFields = { before_published: null, before_cve_id: null, back: null, offset: null } as Record<string, string | null>;
  let next: string | null = null;
  let prev: string | null = null;
  let first: string | null = null;
  // A published-order page asked by offset (a link edited by hand) is paged by offset from
  // there on, so its rows are numbered exactly: the cursor links know no row numbers.
  const byCursor = keyset && offset === 0;
  if (byCursor) {
    const last = result.docs[result.docs.length - 1];
    if (hasMore && last !== undefined) {
      const nextCursor = { published: formatMicros(snapshot.records.publishedMicros[last]!), cve_id: snapshot.records.cveIds[last]! };
      const nextTrail = [...trail, cursor].slice(-TRAIL_MAX);
      next = queryString(form, { ...pageFields, before_published: nextCursor.published, before_cve_id: nextCursor.cve_id, back: trailText(nextTrail) });
    }
    if (cursor !== null) {
      first = queryString(form, pageFields);
      const previous = trail[trail.length - 1];
      const rest = trail.slice(0, -1);
      prev =
        previous === undefined || previous === null
          ? first
          : queryString(form, { ...pageFields, before_published: previous.published, before_cve_id: previous.cve_id, back: rest.length > 0 ? trailText(rest) : null });
    }
  } else {
    if (hasMore) next = queryString(form, { ...pageFields, offset: String(offset + limit) });
    if (offset > 0) {
      first = queryString(form, pageFields);
      prev = queryString(form, { ...pageFields, offset: offset - limit > 0 ? String(offset - limit) : null });
    }
  }

  // Nothing on a page after the first: past the end, not "nothing matches". Its way back is the
  // last page (by offset, whatever the order) when the total is known, else the first page; a
  // step back from it (offset − limit, or the cursor trail) would land past the end again.
  const beyondFirst = cves.length === 0 && (offset > 0 || cursor !== null);
  let totalOf = counted ? { total: result.total, lowerBound: result.totalIsLowerBound } : null;
  if (beyondFirst && totalOf === null) {
    // A cursor page is not counted: past the end, the filter's total (one row read, counted)
    // tells whether anything matches at all and where the last page is.
    try {
      const whole = await listCves(snapshot, { ...request, cursor: null, offset: 0, limit: 1, skipCount: false }, performance.now() + budgetMs);
      if (whole.totalCounted) totalOf = { total: whole.total, lowerBound: whole.totalIsLowerBound };
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
    }
  }
  // Nothing matches at all (a total of 0): that is what the page says, past the end or not.
  const pastEnd = beyondFirst && !(totalOf !== null && totalOf.total === 0 && !totalOf.lowerBound);
  const knownTotal = totalOf !== null && !totalOf.lowerBound && totalOf.total > 0 ? totalOf.total : null;
  const lastOffset = knownTotal !== null ? Math.floor((knownTotal - 1) / limit) * limit : null;
  const last = lastOffset !== null ? queryString(form, { ...pageFields, offset: lastOffset > 0 ? String(lastOffset) : null }) : null;
  if (pastEnd) {
    next = null;
    first = queryString(form, pageFields);
    prev = last ?? first;
  }

  return {
    form,
    choices: choicesOf(form),
    severities: query.severity ?? [],
    pastEnd,
    last,
    lastPageNumber: lastOffset !== null ? lastOffset / limit + 1 : null,
    cves,
    total: totalOf?.total ?? null,
    totalIsLowerBound: totalOf?.lowerBound ?? false,
    searchRelaxed: result.searchRelaxed,
    next,
    prev,
    first,
    firstRow: byCursor ? (cursor === null ? 1 : null) : offset + 1,
    pageNumber: byCursor ? (cursor === null ? 1 : trail[0] === null ? trail.length + 1 : null) : offset % limit === 0 ? offset / limit + 1 : null,
  };
}
