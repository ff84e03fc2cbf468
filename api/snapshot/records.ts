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
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DocColumns } from '../../cli/build/serving.ts';
import { SERVING_RECORD_DIGESTS, SERVING_RECORDS } from '../../lib/serving-layout.ts';
import { LineFile } from './line-file.ts';

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

  private constructor(
    private readonly file: LineFile,
    /** Each record's SHA-1, 20 bytes by doc (record-sha1.bin). */
    private readonly digests: Buffer,
    cveIds: string[],
    publishedMicros: Float64Array,
    active: Uint8Array,
    private readonly docById: Map<string, number>,
  ) {
    this.cveIds = cveIds;
    this.publishedMicros = publishedMicros;
    const activeDocs: number[] = [];
    const rejected: number[] = [];
    active.forEach((flag, doc) => (flag ? activeDocs : rejected).push(doc));
    this.activeDocs = Int32Array.from(activeDocs);
    this.rejectedDocs = Int32Array.from(rejected);
    this.allDocs = Int32Array.from({ length: cveIds.length }, (_, doc) => doc);
    let total = 0;
    for (let doc = 0; doc < cveIds.length; doc++) total += file.lengthOf(doc);
    this.totalBytes = total;
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
    return this.file.lengthOf(doc);
  }

  /** The ETag of one doc's record (etagOf of its bytes, from the digest the build stored). */
  etagOf(doc: number): string {
    return `"${this.digests.toString('base64url', 20 * doc, 20 * doc + 20)}"`;
  }

  /** The record JSON bytes of one doc (read from the records file: a buffer of its own). */
  bytes(doc: number): Buffer {
    return this.file.bytes(doc);
  }

  /** The NDJSON lines (record and newline) of `docs`, in the order given (LineFile.lines). */
  lines(docs: readonly number[]): Buffer {
    return this.file.lines(docs);
  }

  /** Closes the records file; only called once no request holds the snapshot. */
  close(): void {
    this.file.close();
  }

  /**
   * Opens the records of a serving folder: its ids and per-doc arrays (read once by the caller,
   * readDocColumns) and its records file, which stays on disk.
   */
  static open(servingDir: string, doc: { columns: DocColumns; ids: string[] }): RecordStore {
    const { columns, ids } = doc;
    const docById = new Map<string, number>();
    for (let d = 0; d < ids.length; d++) docById.set(ids[d]!, d);
    const digests = readFileSync(join(servingDir, SERVING_RECORD_DIGESTS));
    if (digests.length !== 20 * ids.length) throw new Error(`${servingDir}: ${digests.length} bytes of record digests for ${ids.length} records`);
    const file = new LineFile(join(servingDir, SERVING_RECORDS), columns.record_bytes);
    return new RecordStore(file, digests, ids, columns.published_us, columns.active, docById);
  }
}
