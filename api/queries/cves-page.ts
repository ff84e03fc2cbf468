/**
 * The bytes of a CVE list response (contract 2.3): the records' precomputed JSON joined into
 * `cves` as they are (never parsed or re-serialised), then the members about the total.
 * `total_is_lower_bound`, `total_counted` and `search_relaxed` are always present as booleans,
 * `reverse_available` on every list, `reverse` only when true, the cursor pair only when paging
 * by skip_count or cursor.
 */
import { etagOf } from '../http/respond.ts';
import type { RecordStore } from '../snapshot/records.ts';
import type { ListResult } from './cves-list.ts';

export interface PageMeta {
  reverse: boolean;
  reverseAvailable: boolean;
  limit: number;
  offset: number;
}

const OPEN = Buffer.from('{"cves":[');
/** The byte of ','. */
const COMMA = 0x2c;

/** The members after `cves`, as JSON text without the opening brace. */
function tailJson(result: ListResult, meta: PageMeta): string {
  const tail: Record<string, unknown> = {
    total: result.total,
    total_is_lower_bound: result.totalIsLowerBound,
    total_counted: result.totalCounted,
    search_relaxed: result.searchRelaxed,
    reverse_available: meta.reverseAvailable,
  };
  if (meta.reverse) tail.reverse = true;
  if (result.next !== undefined) {
    tail.next_published = result.next?.published ?? null;
    tail.next_cve_id = result.next?.cve_id ?? null;
  }
  tail.limit = meta.limit;
  tail.offset = meta.offset;
  return JSON.stringify(tail).slice(1);
}

export interface RenderedList {
  body: Buffer;
  /**
   * The body is a function of the snapshot, the docs and the tail: hashing those (a few hundred
   * bytes) instead of the body (up to 200 records) gives an ETag that changes whenever the body
   * does, at a fraction of the cost.
   */
  etag: string;
}

export function renderListBody(records: RecordStore, buildId: string, result: ListResult, meta: PageMeta, extraTail = ''): RenderedList {
  const tail = tailJson(result, meta);
  // `],` + the tail object without its opening brace, with any extra members before its end.
  const close = Buffer.from(`],${extraTail ? `${tail.slice(0, -1)},${extraTail}}` : tail}`);
  // The records' NDJSON lines (consecutive docs are one read), each newline made the comma
  // between two records: a record's JSON never holds a raw newline, only its line's end does.
  const lines = records.lines(result.docs);
  let at = -1;
  for (const doc of result.docs) {
    at += records.lengthOf(doc) + 1;
    lines[at] = COMMA;
  }
  const body = Buffer.concat([OPEN, result.docs.length > 0 ? lines.subarray(0, lines.length - 1) : lines, close]);
  return { body, etag: etagOf(`${buildId}\n${result.docs.join(',')}\n${tail}\n${extraTail}`) };
}
