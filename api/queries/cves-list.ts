/**
 * The CVE list (contract 2.3, 4.1; DESIGN §6): which records a page holds, and what is known
 * of the total, under the per-query execution budget.
 *
 * Pages come from the cheapest place that can answer:
 *   - the unfiltered published listing (only `status`) is a slice of the record store's doc
 *     arrays: the default page, its reverse and its keyset cursor cost no query;
 *   - a search of words alone (no phrase), in published order, intersects the flat postings
 *     (api/snapshot/postings.ts) in JS; with phrases it reads the index (`search_postings`, by term number)
 *     and the normalised text only;
 *   - anything else is one DuckDB query over `cves` (ordered by integer keys, see open.ts).
 * Totals likewise: the doc arrays and the build's term statistics give exact totals without
 * counting; a page that ends before `limit` proves its own total; otherwise a count runs in what
 * is left of the budget, and past it the page's rows prove a floor (`total_is_lower_bound`), or
 * when the page is empty nothing is known (`total_counted` false, total 0), as rules 2, 4, 5 say.
 * A phrase search whose page cannot finish in the budget runs as the conjunction of its words
 * instead (`search_relaxed`, rule 6).
 */
import type { ServingSnapshot } from '../snapshot/serving.ts';
import type { RecordStore } from '../snapshot/records.ts';
import { OVER_BUDGET } from '../snapshot/pool.ts';
import { formatMicros } from '../http/timestamps.ts';
import type { SearchQuery } from '../search/parse.ts';
import { searchDocsSql, type TermIndex } from '../search/sql.ts';
import { filterConditions, filtersBeyondStatus, SqlParams, type CveFilter } from './cves-filter.ts';
import { scanList } from './cves-scan.ts';

export const SORTS = ['published', 'epss', 'severity', 'cvss_v3_score'] as const;
export type CveSort = (typeof SORTS)[number];

/** Every order is descending, ties by cve_id descending (`id_rank` ascending, see open.ts). */
const ORDER_SQL: Record<CveSort, string> = {
  published: 'c.doc',
  epss: 'c.epss_score DESC NULLS LAST, c.id_rank',
  severity: 'c.service_score DESC NULLS LAST, c.id_rank',
  cvss_v3_score: 'c.cvss_v3_score DESC NULLS LAST, c.id_rank',
};

export interface KeysetCursor {
  publishedMicros: number;
  cveId: string;
}

export interface ListRequest {
  limit: number;
  offset: number;
  sort: CveSort;
  filter: CveFilter;
  search: SearchQuery | null;
  /** An extra condition on `cves` (alias `c`), e.g. the vendor match's products. */
  scope?: (alias: string, params: SqlParams) => string;
  skipCount: boolean;
  /** Read from the far end (rule 3); callers allow it only on the unfiltered published listing. */
  reverse: boolean;
  cursor: KeysetCursor | null;
}

/**
 * Whether the execution budget shaped this answer (a relaxed phrase search, a total that is a
 * lower bound or was not counted although asked for): the same request may then get another
 * answer later, so it must not be kept as the snapshot's answer (api/http/response-cache.ts).
 */
export function shapedByBudget(req: ListRequest, result: ListResult): boolean {
  const countWanted = !(req.skipCount || req.cursor !== null);
  return result.searchRelaxed || result.totalIsLowerBound || (countWanted && !result.totalCounted);
}

export interface ListResult {
  docs: number[];
  total: number;
  totalIsLowerBound: boolean;
  totalCounted: boolean;
  searchRelaxed: boolean;
  /**
   * The keyset cursor of the next page: carried (a value or null) when paging by skip_count or
   * cursor, undefined otherwise. null when no row follows, or when the sort has no keyset.
   */
  next: { published: string; cve_id: string } | null | undefined;
}

/** First doc strictly after the cursor in published order (docs sort by published, cve_id DESC). */
export function firstDocAfter(records: RecordStore, cursor: KeysetCursor): number {
  let lo = 0;
  let hi = records.size;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const published = records.publishedMicros[mid]!;
    const after = published < cursor.publishedMicros || (published === cursor.publishedMicros && records.cveIds[mid]! < cursor.cveId);
    if (after) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** First index of the ascending `docs` holding a doc ≥ `doc`. */
function lowerBound(docs: Int32Array, doc: number): number {
  let lo = 0;
  let hi = docs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (docs[mid]! < doc) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function docsOfStatus(records: RecordStore, filter: CveFilter): Int32Array {
  return filter.status === 'active' ? records.activeDocs : filter.status === 'rejected' ? records.rejectedDocs : records.allDocs;
}

interface Page {
  docs: number[];
  /** A row exists after the page. */
  hasMore: boolean;
}

export async function listCves(snapshot: ServingSnapshot, request: ListRequest, deadline: number): Promise<ListResult> {
  let req = request;
  const uncounted = req.skipCount || req.cursor !== null;
  const cursorDoc = req.cursor ? firstDocAfter(snapshot.records, req.cursor) : null;

  if (!req.search && !req.scope && !filtersBeyondStatus(req.filter) && req.sort === 'published') {
    return listFromDocArrays(snapshot.records, req, cursorDoc, uncounted);
  }
  if (req.reverse) throw new Error('reverse is served on the unfiltered published listing only');
  if (!req.search && !req.scope) return listFromColumns(snapshot, req, cursorDoc, uncounted, deadline);

  let stats: Map<string, number> | null = null;
  if (req.search) {
    stats = termStats(snapshot, req.search.terms, req.filter);
    // A word no CVE holds: nothing can match, whatever else the request says.
    if (req.search.terms.some((t) => (stats!.get(t) ?? 0) === 0)) {
      return { docs: [], total: 0, totalIsLowerBound: false, totalCounted: !uncounted, searchRelaxed: false, next: nextCursor(snapshot, req, uncounted, { docs: [], hasMore: false }) };
    }
    // Most frequent first, rarest last: each INTERSECT builds its hash table on the right side.
    const terms = [...req.search.terms].sort((a, b) => stats!.get(b)! - stats!.get(a)!);
    req = { ...req, search: { ...req.search, terms } };
  }

  if (req.search && req.search.phrases.length === 0 && !req.scope && !filtersBeyondStatus(req.filter) && req.sort === 'published') {
    return listFromPostings(snapshot, req, req.search.terms, stats!, cursorDoc, uncounted, deadline);
  }

  const hasPhrases = req.search !== null && req.search.phrases.length > 0;
  const oneWord = req.search && req.search.terms.length === 1 && !hasPhrases && !filtersBeyondStatus(req.filter) && !req.scope;
  // Without phrases the count does not depend on the page: it runs beside it, on another
  // connection, so the answer takes the longer of the two instead of their sum. Its result
  // is used only if the page does not prove the total itself.
  const early = !uncounted && !hasPhrases && !oneWord ? countMatches(snapshot, req, true, deadline) : null;
  early?.catch(() => undefined);

  let searchRelaxed = false;
  let page: Page | typeof OVER_BUDGET = OVER_BUDGET;
  if (hasPhrases) page = await readPage(snapshot, req, cursorDoc, true, deadline);
  if (page === OVER_BUDGET) {
    searchRelaxed = hasPhrases;
    page = (await readPage(snapshot, req, cursorDoc, !searchRelaxed, null)) as Page;
  }

  const result: ListResult = {
    docs: page.docs,
    total: 0,
    totalIsLowerBound: false,
    totalCounted: false,
    searchRelaxed,
    next: nextCursor(snapshot, req, uncounted, page),
  };
  if (uncounted) return result;
  const known = oneWord && stats ? (stats.get(req.search!.terms[0]!) ?? 0) : null;
  return withTotal(result, req, page, known, () => early ?? countMatches(snapshot, req, !searchRelaxed, deadline), early);
}

/**
 * The total of a counted page, by the contract's rules: a page that reaches the end proves it
 * (its position); a `known` figure gives it (one word: the build's count); else `count` runs
 * within the budget, and out of it the rows in hand prove a floor, one more if a row follows,
 * or nothing is known. `settle` (a count started beside the page) is waited for when unused.
 */
async function withTotal(
  result: ListResult,
  req: ListRequest,
  page: Page,
  known: number | null,
  count: () => Promise<number | typeof OVER_BUDGET>,
  settle: Promise<unknown> | null = null,
): Promise<ListResult> {
  if (!page.hasMore && (page.docs.length > 0 || req.offset === 0)) {
    await settle;
    return { ...result, total: req.offset + page.docs.length, totalCounted: true };
  }
  if (known !== null) return { ...result, total: known, totalCounted: true };
  const counted = await count();
  if (counted !== OVER_BUDGET) return { ...result, total: counted, totalCounted: true };
  if (page.docs.length > 0) {
    return { ...result, total: req.offset + page.docs.length + (page.hasMore ? 1 : 0), totalIsLowerBound: true, totalCounted: true };
  }
  return result;
}

/** The unfiltered published listing: slices of the record store's doc arrays. */
function listFromDocArrays(records: RecordStore, req: ListRequest, cursorDoc: number | null, uncounted: boolean): ListResult {
  const docs = docsOfStatus(records, req.filter);
  let page: Page;
  if (req.reverse) {
    // Rule 3: offset and limit count back from the last row; the page keeps the usual order.
    const end = Math.max(0, docs.length - req.offset);
    const begin = Math.max(0, end - req.limit);
    page = { docs: Array.from(docs.subarray(begin, end)), hasMore: end < docs.length };
  } else {
    const from = (cursorDoc === null ? 0 : lowerBound(docs, cursorDoc)) + req.offset;
    const to = from + req.limit;
    page = { docs: Array.from(docs.subarray(Math.min(from, docs.length), Math.min(to, docs.length))), hasMore: to < docs.length };
  }
  return {
    docs: page.docs,
    total: uncounted ? 0 : docs.length,
    totalIsLowerBound: false,
    totalCounted: !uncounted,
    searchRelaxed: false,
    next: nextCursor({ records }, req, uncounted, page),
  };
}

/** Filters without search: a walk over the JS column store (cves-scan.ts). */
function listFromColumns(snapshot: ServingSnapshot, req: ListRequest, cursorDoc: number | null, uncounted: boolean, deadline: number): ListResult {
  const scan = scanList(
    snapshot.columns,
    { filter: req.filter, sort: req.sort, startDoc: cursorDoc ?? 0, offset: req.offset, limit: req.limit, count: !uncounted },
    deadline,
  );
  const page: Page = { docs: scan.docs, hasMore: scan.hasMore };
  const result: ListResult = { docs: scan.docs, total: 0, totalIsLowerBound: false, totalCounted: false, searchRelaxed: false, next: nextCursor(snapshot, req, uncounted, page) };
  if (uncounted) return result;
  // Out of budget the walk still proves every match it saw (at least one past the page).
  return { ...result, total: scan.matched, totalCounted: true, totalIsLowerBound: !scan.complete };
}

function nextCursor(snapshot: Pick<ServingSnapshot, 'records'>, req: ListRequest, uncounted: boolean, page: Page): ListResult['next'] {
  if (!uncounted) return undefined;
  const last = page.docs[page.docs.length - 1];
  if (req.sort !== 'published' || !page.hasMore || last === undefined) return null;
  return { published: formatMicros(snapshot.records.publishedMicros[last]!), cve_id: snapshot.records.cveIds[last]! };
}

/** CVEs of the filter's status holding each term, as the build counted them (the flat postings). */
function termStats(snapshot: ServingSnapshot, terms: string[], filter: CveFilter): Map<string, number> {
  return new Map(terms.map((t) => [t, snapshot.postings.count(t, filter.status)]));
}

/**
 * Words only (no phrase), in published order, no filter beyond status: the intersection of the
 * terms' sorted doc lists (api/snapshot/postings.ts), walked from the rarest, with the status
 * from the column store: the page, whether a row follows, and the total (the term's count for
 * one word, else the intersection counted within the execution budget) — what the SQL path
 * answers.
 */
async function listFromPostings(
  snapshot: ServingSnapshot,
  req: ListRequest,
  terms: readonly string[],
  stats: ReadonlyMap<string, number>,
  cursorDoc: number | null,
  uncounted: boolean,
  deadline: number,
): Promise<ListResult> {
  const lists = terms.map((t) => snapshot.postings.docs(t)).sort((a, b) => a.length - b.length);
  const active = snapshot.columns.active;
  const status = req.filter.status;
  const matches = (from: number): Generator<number> => intersect(lists, from, (doc) => status === 'all' || (active[doc] === 1) === (status === 'active'));
  const docs: number[] = [];
  let skipped = 0;
  let hasMore = false;
  for (const doc of matches(cursorDoc ?? 0)) {
    if (skipped < req.offset) {
      skipped++;
      continue;
    }
    if (docs.length === req.limit) {
      hasMore = true;
      break;
    }
    docs.push(doc);
  }
  const page: Page = { docs, hasMore };
  const result: ListResult = { docs, total: 0, totalIsLowerBound: false, totalCounted: false, searchRelaxed: false, next: nextCursor(snapshot, req, uncounted, page) };
  if (uncounted) return result;
  const known = terms.length === 1 ? (stats.get(terms[0]!) ?? 0) : null;
  // The count is work like the SQL path's: under the same execution budget.
  return withTotal(result, req, page, known, async () => {
    if (performance.now() >= deadline) return OVER_BUDGET;
    let total = 0;
    for (const _ of matches(0)) if (++total % 4096 === 0 && performance.now() >= deadline) return OVER_BUDGET;
    return total;
  });
}

/** Docs ≥ `from` in every list (each ascending) that pass `keep`, ascending; the first list drives. */
function* intersect(lists: readonly Int32Array[], from: number, keep: (doc: number) => boolean): Generator<number> {
  const [driver, ...others] = lists;
  if (!driver) return;
  const at = others.map((list) => lowerBound(list, from));
  next: for (let i = lowerBound(driver, from); i < driver.length; i++) {
    const doc = driver[i]!;
    for (let k = 0; k < others.length; k++) {
      const list = others[k]!;
      let p = at[k]!;
      while (p < list.length && list[p]! < doc) p++;
      at[k] = p;
      if (p === list.length) return;
      if (list[p] !== doc) continue next;
    }
    if (keep(doc)) yield doc;
  }
}

/**
 * FROM/WHERE of the matching CVEs. A search alone in published order reads the index only
 * (its postings already carry the status); otherwise `cves` is filtered.
 */
function matchSql(req: ListRequest, cursorDoc: number | null, withPhrases: boolean, params: SqlParams, termIndex: TermIndex): { sql: string; indexOnly: boolean } {
  if (req.search && !req.scope && !filtersBeyondStatus(req.filter) && req.sort === 'published') {
    const hits = searchDocsSql(req.search, req.filter.status, params, withPhrases, termIndex);
    const after = cursorDoc === null ? '' : ` WHERE h.doc >= ${params.add(cursorDoc)}`;
    return { sql: `FROM (${hits}) h${after}`, indexOnly: true };
  }
  const where = filterConditions(req.filter, 'c', params);
  if (cursorDoc !== null) where.push(`c.doc >= ${params.add(cursorDoc)}`);
  if (req.scope) where.push(req.scope('c', params));
  if (req.search) where.push(`c.doc IN (${searchDocsSql(req.search, req.filter.status, params, withPhrases, termIndex)})`);
  return { sql: `FROM cves c${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, indexOnly: false };
}

/** One page (limit + 1 rows, to know whether another follows); with a deadline, may run out. */
async function readPage(
  snapshot: ServingSnapshot,
  req: ListRequest,
  cursorDoc: number | null,
  withPhrases: boolean,
  deadline: number | null,
): Promise<Page | typeof OVER_BUDGET> {
  const params = new SqlParams();
  const { sql, indexOnly } = matchSql(req, cursorDoc, withPhrases, params, (term) => snapshot.postings.termIndex(term));
  const select = indexOnly
    ? `SELECT h.doc ${sql} ORDER BY h.doc`
    : `SELECT c.doc ${sql} ORDER BY ${ORDER_SQL[req.sort]}`;
  const text = `${select} LIMIT ${params.add(req.limit + 1)} OFFSET ${params.add(req.offset)}`;
  const reader = deadline === null ? await snapshot.pool.read(text, params.values) : await snapshot.pool.readBy(deadline, text, params.values);
  if (reader === OVER_BUDGET) return OVER_BUDGET;
  const docs = (reader.getColumns()[0] ?? []).map(Number);
  const hasMore = docs.length > req.limit;
  if (hasMore) docs.length = req.limit;
  return { docs, hasMore };
}

async function countMatches(snapshot: ServingSnapshot, req: ListRequest, withPhrases: boolean, deadline: number): Promise<number | typeof OVER_BUDGET> {
  const params = new SqlParams();
  const { sql } = matchSql(req, null, withPhrases, params, (term) => snapshot.postings.termIndex(term));
  const reader = await snapshot.pool.readBy(deadline, `SELECT count(*) ${sql}`, params.values);
  if (reader === OVER_BUDGET) return OVER_BUDGET;
  return Number(reader.getRows()[0]?.[0] ?? 0);
}
