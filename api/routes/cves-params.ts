/**
 * From validated query parameters to a list request (api/queries/cves-list.ts), applying the
 * rules that involve several parameters (contract 4.1 rule 3, DESIGN §6):
 *   - `reverse=true` is refused (REVERSE_NOT_ALLOWED, naming the parameter) with a sort other
 *     than `published`, a status other than `active`, any of severity, min_cvss, since, until,
 *     year, kev_only, search present in the query (present at all, whatever its value), or the
 *     cursor;
 *   - the cursor needs both `before_published` and `before_cve_id`, and the published sort;
 *   - `reverse_available` is true exactly when the same request with `reverse=true` would be
 *     served.
 */
import { ApiError, invalidParameter } from '../http/errors.ts';
import { parseSearch, type SearchQuery } from '../search/parse.ts';
import type { CveFilter, Severity, Status } from '../queries/cves-filter.ts';
import type { CveSort, ListRequest } from '../queries/cves-list.ts';
import { DEFAULT_LIMIT } from './cves-schemas.ts';

/** Parsed values of the list parameters (the output of CveListQuery / CveMatchQuery). */
export interface ListQuery {
  limit?: number | undefined;
  offset?: number | undefined;
  sort?: CveSort | undefined;
  severity?: Severity[] | undefined;
  severity_basis?: 'nvd' | 'svc' | undefined;
  min_cvss?: number | undefined;
  kev_only?: boolean | undefined;
  year?: number | undefined;
  search?: string | undefined;
  since?: bigint | undefined;
  until?: bigint | undefined;
  status?: Status | undefined;
  skip_count?: boolean | undefined;
  reverse?: boolean | undefined;
  before_published?: bigint | undefined;
  before_cve_id?: string | undefined;
}

/** Parameters whose presence rules `reverse` out (contract 4.1 rule 3), in the order named. */
export const REVERSE_BLOCKING_FILTERS = ['severity', 'min_cvss', 'since', 'until', 'year', 'kev_only', 'search'] as const;

/** The first parameter that keeps `reverse` from being served, or null. */
export function reverseBlocker(query: ListQuery, present: (name: string) => boolean): string | null {
  if (query.sort !== undefined && query.sort !== 'published') return 'sort';
  if (query.status !== undefined && query.status !== 'active') return 'status';
  for (const name of REVERSE_BLOCKING_FILTERS) if (present(name)) return name;
  if (present('before_published')) return 'before_published';
  if (present('before_cve_id')) return 'before_cve_id';
  return null;
}

export function filterOf(query: ListQuery): CveFilter {
  return {
    status: query.status ?? 'active',
    severities: query.severity ?? null,
    severityBasis: query.severity_basis ?? 'nvd',
    minCvss: query.min_cvss ?? null,
    kevOnly: query.kev_only ?? false,
    year: query.year ?? null,
    sinceMicros: query.since ?? null,
    untilMicros: query.until ?? null,
  };
}

function searchOf(raw: string | undefined): SearchQuery | null {
  // An empty box (`search=`) searches for nothing: the parameter is treated as absent.
  if (raw === undefined || raw.trim() === '') return null;
  let search: SearchQuery | null;
  try {
    search = parseSearch(raw);
  } catch (err) {
    throw invalidParameter('search', `search: ${(err as Error).message}`);
  }
  if (search === null) throw invalidParameter('search', 'search: holds no letter or digit to look for');
  return search;
}

export interface InterpretedList {
  request: ListRequest;
  reverseAvailable: boolean;
}

/**
 * `reverseRefusal` overrides the blocker for endpoints where reverse is never served (the
 * vendor match: `vendor`). There the refusal names `reverse` itself, whose document allows
 * only false (`enum: [false]`): the value sent is the fault, not another parameter.
 */
export function interpretList(query: ListQuery, present: (name: string) => boolean, reverseRefusal?: string): InterpretedList {
  const blocker = reverseRefusal ?? reverseBlocker(query, present);
  const reverse = query.reverse === true;
  if (reverse && reverseRefusal !== undefined) {
    throw new ApiError(
      'REVERSE_NOT_ALLOWED',
      `reverse: only false here; reverse=true reads the default listing only (published order, active CVEs, no filter, search or cursor), and "${reverseRefusal}" filters this one.`,
      { parameter: 'reverse' },
    );
  }
  if (reverse && blocker !== null) {
    throw new ApiError(
      'REVERSE_NOT_ALLOWED',
      `reverse=true reads the default listing only (published order, active CVEs, no filter, search or cursor); "${blocker}" is in the request.`,
      { parameter: blocker },
    );
  }
  const published = query.before_published;
  const cveId = query.before_cve_id;
  if ((published === undefined) !== (cveId === undefined)) {
    const missing = published === undefined ? 'before_published' : 'before_cve_id';
    throw invalidParameter(missing, `the keyset cursor needs both before_published and before_cve_id; ${missing} is missing`);
  }
  const cursor = published !== undefined && cveId !== undefined ? { publishedMicros: Number(published), cveId } : null;
  const sort = query.sort ?? 'published';
  if (cursor && sort !== 'published') {
    throw invalidParameter('sort', `the keyset cursor exists for the published order only; sort=${sort} pages with offset`);
  }
  return {
    request: {
      limit: query.limit ?? DEFAULT_LIMIT,
      offset: query.offset ?? 0,
      sort,
      filter: filterOf(query),
      search: searchOf(query.search),
      skipCount: query.skip_count === true,
      reverse,
      cursor,
    },
    reverseAvailable: blocker === null,
  };
}
