/**
 * The CVE records of one snapshot: every record's JSON bytes, addressed by `doc` (the row's
 * position in the default order, see sql/11_serving.sql) and by CVE id. The bytes stay in the
 * serving file `records.ndjson` (one record per line, in doc order): a record is one positioned
 * read of that file, served from the OS page cache, so the replica's heap never holds them and
 * opening costs only the offsets. An id lookup is a Map lookup and one read (no DuckDB round
 * trip: DESIGN §8 asks ≥ 3,000 req/s), and list pages and exports are assembled from these
 * bytes, so a record is never re-serialised.
 *
 * Beside the offsets, the columns the unfiltered published listing needs (id, publication time,
 * status), so the default page, its reverse and its keyset cursor are array slices.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { SERVING_RECORDS, type DocColumns } from '../../cli/build/serving.ts';

export class RecordStore {
  /** CVE id by doc. */
  readonly cveIds: readonly string[];
  /** Publication time in microseconds since the epoch (UTC), by doc. */
  readonly publishedMicros: Float64Array;
  /** Docs of active (not rejected) CVEs, ascending (= newest first). */
  readonly activeDocs: Int32Array;
  /** Docs of rejected CVEs, ascending. */
  readonly rejectedDocs: Int32Array;
  /** Docs of every CVE (0 … size-1). */
  readonly allDocs: Int32Array;
  readonly totalBytes: number;

  private readonly docById: Map<string, number>;
  /** Byte offset of each doc's line in records.ndjson (Float64: the file may pass 4 GB). */
  private readonly offsetOf: Float64Array;
  private readonly lengths: Uint32Array;
  private fd: number | null;

  private constructor(parts: {
    cveIds: string[];
    publishedMicros: Float64Array;
    active: Uint8Array;
    fd: number;
    offsetOf: Float64Array;
    lengthOf: Uint32Array;
    docById: Map<string, number>;
  }) {
    this.cveIds = parts.cveIds;
    this.publishedMicros = parts.publishedMicros;
    this.fd = parts.fd;
    this.offsetOf = parts.offsetOf;
    this.lengths = parts.lengthOf;
    this.docById = parts.docById;
    const active: number[] = [];
    const rejected: number[] = [];
    parts.active.forEach((flag, doc) => (flag ? active : rejected).push(doc));
    this.activeDocs = Int32Array.from(active);
    this.rejectedDocs = Int32Array.from(rejected);
    this.allDocs = Int32Array.from({ length: parts.cveIds.length }, (_, doc) => doc);
    this.totalBytes = parts.lengthOf.reduce((sum, n) => sum + n, 0);
  }

  get size(): number {
    return this.cveIds.length;
  }

  /** The doc of a CVE id (exact spelling, upper case), or undefined. */
  docOf(cveId: string): number | undefined {
    return this.docById.get(cveId);
  }

  /** The size in bytes of one doc's record JSON. */
  lengthOf(doc: number): number {
    return this.lengths[doc]!;
  }

  /** The record JSON bytes of one doc (read from the records file: a buffer of its own). */
  bytes(doc: number): Buffer {
    if (this.fd === null) throw new Error('the snapshot\'s records are closed');
    const length = this.lengths[doc];
    if (length === undefined) throw new RangeError(`no record at doc ${doc}`);
    const buffer = Buffer.allocUnsafe(length);
    let read = 0;
    while (read < length) {
      const n = readSync(this.fd, buffer, read, length - read, this.offsetOf[doc]! + read);
      if (n === 0) throw new Error(`records file ends inside doc ${doc}`);
      read += n;
    }
    return buffer;
  }

  /**
   * The NDJSON lines (record and newline) of `docs`, in the order given. The records file holds
   * exactly these lines in doc order, so each run of consecutive docs is one read.
   */
  lines(docs: readonly number[]): Buffer {
    if (this.fd === null) throw new Error('the snapshot\'s records are closed');
    let size = 0;
    for (const doc of docs) {
      const length = this.lengths[doc];
      if (length === undefined) throw new RangeError(`no record at doc ${doc}`);
      size += length + 1;
    }
    const out = Buffer.allocUnsafe(size);
    let at = 0;
    for (let i = 0; i < docs.length; ) {
      let j = i + 1;
      while (j < docs.length && docs[j] === docs[j - 1]! + 1) j++;
      const start = this.offsetOf[docs[i]!]!;
      const end = this.offsetOf[docs[j - 1]!]! + this.lengths[docs[j - 1]!]! + 1;
      let read = 0;
      while (read < end - start) {
        const n = readSync(this.fd, out, at + read, end - start - read, start + read);
        if (n === 0) throw new Error(`records file ends inside doc ${docs[j - 1]}`);
        read += n;
      }
      at += end - start;
      i = j;
    }
    return out;
  }

  /** Closes the records file; only called once no request holds the snapshot. */
  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /**
   * Opens the records of a serving folder: its ids and per-doc arrays (read once by the caller,
   * readDocColumns) and its records file, which stays on disk.
   */
  static open(servingDir: string, doc: { columns: DocColumns; ids: string[] }): RecordStore {
    const { columns, ids } = doc;
    const size = ids.length;
    const lengthOf = columns.record_bytes;
    const offsetOf = new Float64Array(size);
    let offset = 0;
    for (let d = 0; d < size; d++) {
      offsetOf[d] = offset;
      offset += lengthOf[d]! + 1;
    }
    const docById = new Map<string, number>();
    for (let d = 0; d < size; d++) docById.set(ids[d]!, d);
    const fd = openSync(join(servingDir, SERVING_RECORDS), 'r');
    return new RecordStore({ cveIds: ids, publishedMicros: columns.published_us, active: columns.active, fd, offsetOf, lengthOf, docById });
  }
}
