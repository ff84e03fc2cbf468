/**
 * SQL for a parsed search (parse.ts) over the in-memory index (api/snapshot/open.ts):
 * `search_postings (term, doc, active)` narrows the candidates to the CVEs holding every term,
 * `search_text (doc, text)` confirms phrases by substring on the normalised text. The result
 * is a set of `doc`s; callers order, filter and page it.
 */
import type { Status } from '../queries/cves-filter.ts';
import { SqlParams } from '../queries/cves-filter.ts';
import type { SearchQuery } from './parse.ts';

function postingStatus(status: Status): string {
  return status === 'active' ? ' AND active' : status === 'rejected' ? ' AND NOT active' : '';
}

/** Docs holding every term of the search (the conjunction), for CVEs of `status`. */
export function conjunctionSql(search: SearchQuery, status: Status, params: SqlParams): string {
  const onStatus = postingStatus(status);
  // One equality scan per term: the postings are stored by term, so each reads only its own
  // rows (an IN list would be pruned to the whole range between its smallest and largest term).
  return search.terms.map((t) => `SELECT doc FROM search_postings WHERE term = ${params.add(t)}${onStatus}`).join(' INTERSECT ');
}

/**
 * Docs matching the search as sent: the conjunction, and when `withPhrases` every phrase as a
 * substring of the normalised text. Without phrases (or relaxed) it is the conjunction alone.
 */
export function searchDocsSql(search: SearchQuery, status: Status, params: SqlParams, withPhrases: boolean): string {
  const candidates = conjunctionSql(search, status, params);
  if (!withPhrases || search.phrases.length === 0) return candidates;
  const tests = search.phrases.map((p) => `contains(t.text, ${params.add(p)})`).join(' AND ');
  return `SELECT t.doc FROM search_text t WHERE t.doc IN (${candidates}) AND ${tests}`;
}
