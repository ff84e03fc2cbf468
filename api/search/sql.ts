/**
 * SQL for a parsed search (parse.ts) over the in-memory index (api/snapshot/open.ts):
 * `search_postings (term_id, doc, active)` narrows the candidates to the CVEs holding every
 * term, `search_text (doc, text)` confirms phrases by substring on the normalised text. A term
 * is asked by its number, its line in the snapshot's term dictionary (`termIndex` of
 * api/snapshot/postings.ts; -1, which no row holds, for a term no CVE has). The result is a
 * set of `doc`s; callers order, filter and page it.
 */
import type { Status } from '../queries/cves-filter.ts';
import { SqlParams } from '../queries/cves-filter.ts';
import type { SearchQuery } from './parse.ts';

function postingStatus(status: Status): string {
  return status === 'active' ? ' AND active' : status === 'rejected' ? ' AND NOT active' : '';
}

function integerLiteral(n: number): string {
  if (!Number.isSafeInteger(n)) throw new Error(`search term number ${n} is not an integer`);
  return String(n);
}

/** A term's number in the snapshot's dictionary, -1 when no CVE holds it. */
export type TermIndex = (term: string) => number;

/** Docs holding every term of the search (the conjunction), for CVEs of `status`. */
export function conjunctionSql(search: SearchQuery, status: Status, termIndex: TermIndex): string {
  const onStatus = postingStatus(status);
  // One equality scan per term: the postings are stored by term, so each reads only its own
  // rows (an IN list would be pruned to the whole range between its smallest and largest term).
  // The number is written as an INTEGER literal (it is the snapshot's, never the caller's
  // text), so the scan is pruned by the stored column's ranges as it was by the term's.
  return search.terms.map((t) => `SELECT doc FROM search_postings WHERE term_id = ${integerLiteral(termIndex(t))}${onStatus}`).join(' INTERSECT ');
}

/**
 * Docs matching the search as sent: the conjunction, and when `withPhrases` every phrase as a
 * substring of the normalised text. Without phrases (or relaxed) it is the conjunction alone.
 */
export function searchDocsSql(search: SearchQuery, status: Status, params: SqlParams, withPhrases: boolean, termIndex: TermIndex): string {
  const candidates = conjunctionSql(search, status, termIndex);
  if (!withPhrases || search.phrases.length === 0) return candidates;
  const tests = search.phrases.map((p) => `contains(t.text, ${params.add(p)})`).join(' AND ');
  return `SELECT t.doc FROM search_text t WHERE t.doc IN (${candidates}) AND ${tests}`;
}
