/**
 * `/cves/export.ndjson` (contract 4.8): the matching records, newest publication first, one
 * record JSON per line, at most `cap` rows. The matching docs come from a DuckDB streaming
 * result on a connection of the export's own (another query on a connection ends its stream);
 * each DuckDB chunk (2,048 docs) becomes the records' bytes, taken from the record store. The
 * stream is pulled by the socket (backpressure), so memory holds about one chunk, not the export.
 */
import type { DuckDBConnection, DuckDBResult } from '@duckdb/node-api';
import type { ServingSnapshot } from '../snapshot/serving.ts';
import { filterConditions, SqlParams, type CveFilter } from './cves-filter.ts';

/** Bytes per piece handed to the socket: big enough to be cheap, small enough to stay flat. */
const PIECE_BYTES = 256 * 1024;

function whereSql(filter: CveFilter, params: SqlParams): string {
  const where = filterConditions(filter, 'c', params);
  return where.length ? ` WHERE ${where.join(' AND ')}` : '';
}

/** How many CVEs match the export's filter (before the cap). */
export async function countExport(snapshot: ServingSnapshot, filter: CveFilter): Promise<number> {
  const params = new SqlParams();
  const reader = await snapshot.pool.read(`SELECT count(*) FROM cves c${whereSql(filter, params)}`, params.values);
  return Number(reader.getRows()[0]?.[0] ?? 0);
}

/**
 * The NDJSON body. The snapshot is retained until the stream ends or is cancelled (a client
 * that disconnects), so a swap never closes the database under a running export.
 */
export function exportStream(snapshot: ServingSnapshot, filter: CveFilter, cap: number): ReadableStream<Uint8Array> {
  const release = snapshot.retain();
  let connection: DuckDBConnection | undefined;
  let result: DuckDBResult | undefined;
  let finished = false;
  let pulling = false;
  let cancelled = false;
  // Closing the connection under a pending fetch is unsafe: a cancel during a pull waits for it.
  const finish = () => {
    if (finished) return;
    finished = true;
    connection?.closeSync();
    release();
  };

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        pulling = true;
        try {
          if (!result) {
            connection = await snapshot.connect();
            const params = new SqlParams();
            const sql = `SELECT c.doc FROM cves c${whereSql(filter, params)} ORDER BY c.doc LIMIT ${Math.trunc(cap)}`;
            result = await connection.stream(sql, params.values);
          }
          const chunk = await result.fetchChunk();
          if (cancelled) return;
          if (!chunk || chunk.rowCount === 0) {
            finish();
            controller.close();
            return;
          }
          // One chunk of docs (2,048 at most, ~6 MB at full scale) in pieces the socket takes
          // in turn; consecutive docs are one read of the records file each.
          const docs = chunk.getColumnValues(0) as number[];
          let piece: number[] = [];
          let size = 0;
          for (const doc of docs) {
            piece.push(doc);
            size += snapshot.records.lengthOf(doc) + 1;
            if (size >= PIECE_BYTES) {
              controller.enqueue(snapshot.records.lines(piece));
              piece = [];
              size = 0;
            }
          }
          if (piece.length > 0) controller.enqueue(snapshot.records.lines(piece));
        } catch (err) {
          finish();
          if (!cancelled) controller.error(err);
        } finally {
          pulling = false;
          if (cancelled) finish();
        }
      },
      cancel() {
        cancelled = true;
        if (!pulling) finish();
      },
    },
    { highWaterMark: 0 },
  );
}
