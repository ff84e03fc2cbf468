/**
 * The search postings as flat files (written by cli/build/serving.ts, layout in
 * lib/serving-layout.ts): the term dictionary held as one buffer of sorted terms with their
 * positions (a binary search by bytes, no JS string per term), the counts per term, and each
 * term's docs read from postings.bin by positioned reads through the OS page cache.
 *
 * A search of words only (no phrase) in published order is then an intersection of sorted
 * doc lists in JS, with exact counts, instead of two DuckDB queries per request.
 */
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readFlatColumns } from '../../lib/flat-columns.ts';
import { SERVING_POSTINGS, SERVING_TERM_COLUMNS, SERVING_TERMS } from '../../lib/serving-layout.ts';
import type { Status } from '../queries/cves-filter.ts';
import { readFully } from './line-file.ts';

export class FlatPostings {
  private fd: number | null;

  private constructor(
    private readonly dictionary: Buffer,
    /** Byte offset in `dictionary` of each term (one more entry: the end). */
    private readonly termOffsets: Uint32Array,
    private readonly start: Uint32Array,
    private readonly allCount: Uint32Array,
    private readonly activeCount: Uint32Array,
    private readonly path: string,
    fd: number,
  ) {
    this.fd = fd;
  }

  static open(servingDir: string): FlatPostings {
    const dictionary = readFileSync(join(servingDir, SERVING_TERMS));
    const columns = readFlatColumns(join(servingDir, SERVING_TERM_COLUMNS)) as Record<string, Uint32Array>;
    const { start, all_count: allCount, active_count: activeCount } = columns;
    if (!start || !allCount || !activeCount) throw new Error(`${servingDir}/${SERVING_TERM_COLUMNS}: missing columns`);
    const termOffsets = new Uint32Array(allCount.length + 1);
    let term = 0;
    for (let at = 0; at < dictionary.length; at++) {
      if (dictionary[at] === 0x0a) termOffsets[++term] = at + 1;
    }
    if (term !== allCount.length) throw new Error(`${servingDir}: ${term} terms for ${allCount.length} term counts`);
    if (start.length !== allCount.length + 1) throw new Error(`${servingDir}/${SERVING_TERM_COLUMNS}: ${start.length} term starts for ${allCount.length} terms`);
    const path = join(servingDir, SERVING_POSTINGS);
    const fd = openSync(path, 'r');
    // The docs of every term end where the last start says: a postings file cut short was
    // opened, and every search reaching past the cut answered 500 (see LineFile).
    const size = fstatSync(fd).size;
    const expected = start[allCount.length]! * 4;
    if (size !== expected) {
      closeSync(fd);
      throw new Error(`${path}: ${size} bytes, its ${start[allCount.length]} docs make ${expected}`);
    }
    return new FlatPostings(dictionary, termOffsets, start, allCount, activeCount, path, fd);
  }

  /** The position of `term` in the dictionary, or -1. */
  termIndex(term: string): number {
    const wanted = Buffer.from(term);
    let low = 0;
    let high = this.allCount.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      // The term's bytes without the newline that ends it.
      const order = this.dictionary.compare(wanted, 0, wanted.length, this.termOffsets[mid]!, this.termOffsets[mid + 1]! - 1);
      if (order === 0) return mid;
      if (order < 0) low = mid + 1;
      else high = mid;
    }
    return -1;
  }

  /** CVEs of `status` holding the term (0 when no CVE does), as the build counted them. */
  count(term: string, status: Status): number {
    const i = this.termIndex(term);
    if (i < 0) return 0;
    const active = this.activeCount[i]!;
    return status === 'active' ? active : status === 'rejected' ? this.allCount[i]! - active : this.allCount[i]!;
  }

  /** Every doc holding the term, ascending (empty when no CVE does). */
  docs(term: string): Int32Array {
    const i = this.termIndex(term);
    if (i < 0) return new Int32Array(0);
    const first = this.start[i]!;
    const docs = new Int32Array(this.start[i + 1]! - first);
    if (this.fd === null) throw new Error(`${this.path} is closed`);
    readFully(this.fd, this.path, new Uint8Array(docs.buffer), 0, first * 4, docs.byteLength);
    return docs;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
