/**
 * A filtered CVE list without search (contract 4.1), answered from the JS column store
 * (api/snapshot/columns.ts): the docs are walked in the order of the sort, each tested
 * against the filter, the page collected on the way. Counting is the same walk carried on to
 * the end, checked against the execution budget every few thousand docs: past it, the matches
 * seen so far are a proven floor (rules 2, 4). The conditions are those of cves-filter.ts's
 * SQL, which the export and searches use; the tests hold both to the same answers.
 */
import type { CveColumns } from '../snapshot/columns.ts';
import { SEVERITY_CODES } from '../snapshot/columns.ts';
import type { CveFilter } from './cves-filter.ts';

export interface ScanRequest {
  filter: CveFilter;
  /** `published` walks docs in order from `startDoc`; the others walk their precomputed order. */
  sort: 'published' | 'epss' | 'severity' | 'cvss_v3_score';
  startDoc: number;
  offset: number;
  limit: number;
  /** false: stop once the page and one more match are found. */
  count: boolean;
}

export interface ScanResult {
  docs: number[];
  hasMore: boolean;
  /** Matches seen: the exact total when `complete`, else a floor. */
  matched: number;
  complete: boolean;
}

/** Docs between two looks at the clock. */
const CHECK_EVERY = 16_384;

export function scanList(columns: CveColumns, req: ScanRequest, deadline: number): ScanResult {
  const f = req.filter;
  const wantActive = f.status === 'active' ? 1 : f.status === 'rejected' ? 0 : -1;
  const severities = f.severities === null ? null : f.severityBasis === 'svc' ? columns.serviceSeverity : columns.severity;
  let severityMask = 0;
  for (const s of f.severities ?? []) severityMask |= 1 << SEVERITY_CODES[s]!;
  const minCvss = f.minCvss;
  const year = f.year;
  const since = f.sinceMicros === null ? null : Number(f.sinceMicros);
  const until = f.untilMicros === null ? null : Number(f.untilMicros);
  const { active, maxCvss, inKev, lastModifiedMicros } = columns;
  const years = columns.year;
  const accepts = (d: number): boolean =>
    !(wantActive !== -1 && active[d] !== wantActive) &&
    !(severities !== null && (severityMask & (1 << severities[d]!)) === 0) &&
    !(minCvss !== null && !(maxCvss[d]! >= minCvss)) &&
    !(f.kevOnly && inKev[d] !== 1) &&
    !(year !== null && years[d] !== year) &&
    !(since !== null && !(lastModifiedMicros[d]! >= since)) &&
    !(until !== null && !(lastModifiedMicros[d]! < until));
  const order = req.sort === 'published' ? null : columns.orders[req.sort];
  let n = columns.size;
  // One year is a range of docs: only that range is walked, in publication order; the other
  // sorts order its matches by their rank (a few thousand docs instead of every CVE).
  const range = year === null ? null : columns.yearRange(year);
  if (range !== null && order !== null) return scanRangeSorted(columns, req, range, accepts);
  if (range !== null) n = range[1];

  const docs: number[] = [];
  const pageEnd = req.offset + req.limit;
  let matched = 0;
  let complete = true;
  let i = req.sort === 'published' ? Math.max(req.startDoc, range?.[0] ?? 0) : 0;
  let nextCheck = i + CHECK_EVERY;
  for (; i < n; i++) {
    const d = order === null ? i : order[i]!;
    if (!accepts(d)) continue;
    if (matched >= req.offset && matched < pageEnd) docs.push(d);
    matched++;
    // Once the page and the proof of a further match are in hand, only counting goes on: it
    // stops when not asked for, or when the budget is spent (looked at every CHECK_EVERY docs).
    if (matched > pageEnd && (!req.count || (matched === pageEnd + 1 && performance.now() >= deadline))) {
      complete = false;
      break;
    }
    if (matched > pageEnd && i >= nextCheck) {
      nextCheck = i + CHECK_EVERY;
      if (performance.now() >= deadline) {
        complete = false;
        break;
      }
    }
  }
  return { docs, hasMore: matched > pageEnd, matched, complete };
}

/** The matches of a range of docs in a sort's order: filtered, then ordered by rank. */
function scanRangeSorted(columns: CveColumns, req: ScanRequest, [start, end]: [number, number], accepts: (doc: number) => boolean): ScanResult {
  const rank = columns.rank(req.sort as Exclude<ScanRequest['sort'], 'published'>);
  const matches: number[] = [];
  for (let d = start; d < end; d++) if (accepts(d)) matches.push(d);
  matches.sort((a, b) => rank[a]! - rank[b]!);
  const pageEnd = req.offset + req.limit;
  return { docs: matches.slice(req.offset, pageEnd), hasMore: matches.length > pageEnd, matched: matches.length, complete: true };
}
