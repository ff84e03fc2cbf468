/**
 * The CVE records of one snapshot, in JS memory: every `record_json` as UTF-8 bytes, addressed
 * by `doc` (the row's position in the default order, see open.ts) and by CVE id. An id lookup
 * is a Map lookup and a Buffer slice (no DuckDB round trip: DESIGN §8 asks ≥ 3,000 req/s), and
 * list pages and exports are assembled from these slices, so a record is never re-serialised.
 *
 * Beside the bytes, the columns the unfiltered published listing needs (id, publication time,
 * status), so the default page, its reverse and its keyset cursor are array slices.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { tableReader } from '../../lib/snapshot-layout.ts';

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
  private readonly chunks: Buffer[];
  private readonly chunkOf: Uint16Array;
  private readonly offsetOf: Uint32Array;
  private readonly lengthOf: Uint32Array;

  private constructor(parts: {
    cveIds: string[];
    publishedMicros: Float64Array;
    active: Uint8Array;
    chunks: Buffer[];
    chunkOf: Uint16Array;
    offsetOf: Uint32Array;
    lengthOf: Uint32Array;
    docById: Map<string, number>;
  }) {
    this.cveIds = parts.cveIds;
    this.publishedMicros = parts.publishedMicros;
    this.chunks = parts.chunks;
    this.chunkOf = parts.chunkOf;
    this.offsetOf = parts.offsetOf;
    this.lengthOf = parts.lengthOf;
    this.docById = parts.docById;
    const active: number[] = [];
    const rejected: number[] = [];
    parts.active.forEach((flag, doc) => (flag ? active : rejected).push(doc));
    this.activeDocs = Int32Array.from(active);
    this.rejectedDocs = Int32Array.from(rejected);
    this.allDocs = Int32Array.from({ length: parts.cveIds.length }, (_, doc) => doc);
    this.totalBytes = parts.chunks.reduce((sum, b) => sum + b.length, 0);
  }

  get size(): number {
    return this.cveIds.length;
  }

  /** The doc of a CVE id (exact spelling, upper case), or undefined. */
  docOf(cveId: string): number | undefined {
    return this.docById.get(cveId);
  }

  /** The record JSON bytes of one doc (a view, not a copy). */
  bytes(doc: number): Buffer {
    const chunk = this.chunks[this.chunkOf[doc]!]!;
    const offset = this.offsetOf[doc]!;
    return chunk.subarray(offset, offset + this.lengthOf[doc]!);
  }

  /**
   * Loads the records of the snapshot at `snapshotDir`, whose `cves` table (with `doc`) is
   * already in `connection`'s database. The Parquet files are read once, streamed, in chunks:
   * memory holds the bytes plus one chunk of strings, never the whole column as JS strings.
   */
  static async load(connection: DuckDBConnection, snapshotDir: string): Promise<RecordStore> {
    const columns = await connection.runAndReadAll(
      `SELECT cve_id, CAST(epoch_us(published) AS DOUBLE) AS published_us, status = 'active' AS active FROM cves ORDER BY doc`,
    );
    const cveIds = columns.getColumns()[0] as string[];
    const size = cveIds.length;
    const publishedMicros = Float64Array.from(columns.getColumns()[1] as (number | null)[], (v) => v ?? Number.NaN);
    const active = Uint8Array.from(columns.getColumns()[2] as (boolean | null)[], (v) => (v ? 1 : 0));
    const docById = new Map(cveIds.map((id, doc) => [id, doc]));

    const chunks: Buffer[] = [];
    const chunkOf = new Uint16Array(size);
    const offsetOf = new Uint32Array(size);
    const lengthOf = new Uint32Array(size);
    const seen = new Uint8Array(size);
    let loaded = 0;
    // Files are read in file order; the doc of each row comes from its id, so no sort is needed.
    const result = await connection.stream(`SELECT cve_id, record_json FROM ${tableReader(snapshotDir, 'cves')}`);
    for (;;) {
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      const ids = chunk.getColumnValues(0) as string[];
      const texts = chunk.getColumnValues(1) as (string | null)[];
      const lengths = texts.map((t) => (t === null ? 0 : Buffer.byteLength(t)));
      const buffer = Buffer.allocUnsafe(lengths.reduce((a, b) => a + b, 0));
      let offset = 0;
      for (let i = 0; i < ids.length; i++) {
        const doc = docById.get(ids[i]!);
        const text = texts[i];
        if (doc === undefined || text === null || text === undefined) throw new Error(`snapshot record ${ids[i]} has no JSON or no row`);
        buffer.write(text, offset, 'utf8');
        chunkOf[doc] = chunks.length;
        offsetOf[doc] = offset;
        lengthOf[doc] = lengths[i]!;
        seen[doc] = 1;
        loaded++;
        offset += lengths[i]!;
      }
      chunks.push(buffer);
    }
    if (loaded !== size || seen.includes(0)) throw new Error(`snapshot records: ${loaded} JSON rows for ${size} CVEs`);
    return new RecordStore({ cveIds, publishedMicros, active, chunks, chunkOf, offsetOf, lengthOf, docById });
  }
}
