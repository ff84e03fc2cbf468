/**
 * The line files of the serving folder (records.ndjson, the stored answers, the package index):
 * one text per line, in a query's order, with each line's length in bytes, from which a replica
 * finds a line by offset. Two writers: streamLines, through JavaScript, which runs beside
 * DuckDB's work (it takes none of its threads), and writeLines, DuckDB's own CSV writer, for a
 * file written when nothing else runs. Either way a file that is not exactly the rows in order
 * is an error, never a served file.
 */
import { hash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import type { DuckDBConnection, DuckDBDataChunk } from '@duckdb/node-api';
import { LineWriter } from '../../lib/line-writer.ts';

/** The rows of `sql` chunk by chunk (a few thousand rows each), as DuckDB streams them. */
export async function* streamChunks(connection: DuckDBConnection, sql: string): AsyncGenerator<DuckDBDataChunk> {
  const result = await connection.stream(sql);
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) return;
    yield chunk;
  }
}

export interface StreamedLines {
  /** Each line's length in bytes, without its newline. */
  lengths: Uint32Array;
  /** Each line's SHA-1, 20 bytes a line in order (with `digests`). */
  digests: Buffer | null;
  /** The second column of each row (with `second: 'cve_id'`). */
  ids: string[] | null;
}

export interface StreamLinesOptions {
  /**
   * What the query gives second: `doc`, checked to be the line's number (line i must be doc i:
   * a table written as it is held, not sorted again, must hold its rows so); `cve_id`, returned
   * in `ids`, for the caller to prove the order with.
   */
  second?: 'doc' | 'cve_id';
  /** Also each line's SHA-1 (of its UTF-8 bytes, as written). */
  digests?: boolean;
}

/**
 * Writes the first column (VARCHAR) of `sql` as the lines of `path`, in its order, streamed
 * through JavaScript (a LineWriter with a 4 MiB buffer). Slower per byte than DuckDB's own
 * writer (writeLines), but it takes no DuckDB thread and needs no single-thread setting, so it
 * runs beside DuckDB's work instead of after it.
 */
export async function streamLines(connection: DuckDBConnection, sql: string, path: string, what: string, opts: StreamLinesOptions = {}): Promise<StreamedLines> {
  const lengths: number[] = [];
  const digestParts: Buffer[] = [];
  const ids: string[] | null = opts.second === 'cve_id' ? [] : null;
  const out = new LineWriter(path, 4 * 1024 * 1024);
  try {
    for await (const chunk of streamChunks(connection, sql)) {
      const texts = chunk.getColumnValues(0) as (string | null)[];
      const second = opts.second ? chunk.getColumnValues(1) : null;
      const digests = opts.digests ? Buffer.allocUnsafe(20 * texts.length) : null;
      for (let i = 0; i < texts.length; i++) {
        const line = lengths.length + 1;
        const text = texts[i]!;
        if (text === null) throw new Error(`${what} at line ${line} has no JSON`);
        if (opts.second === 'doc' && second![i] !== line - 1) throw new Error(`${what} at line ${line} is doc ${String(second![i])}, expected ${line - 1}`);
        if (text.includes('\n')) throw new Error(`${what} at line ${line} holds a newline`);
        lengths.push(out.write(text));
        if (digests) hash('sha1', out.lastLine(), 'buffer').copy(digests, 20 * i);
      }
      if (ids) for (const id of second as string[]) ids.push(id);
      if (digests) digestParts.push(digests);
    }
  } finally {
    out.close();
  }
  return { lengths: Uint32Array.from(lengths), digests: opts.digests ? Buffer.concat(digestParts) : null, ids };
}

/**
 * Writes the one VARCHAR column of `sql`, row by row in its order, as the lines of `path`;
 * returns each line's length in bytes (without its newline). DuckDB writes the file itself
 * (its CSV writer with no quoting writes each value as it is: a JSON text holds no raw newline),
 * twice as fast as streaming the texts through JavaScript; the lengths come from a query of
 * their own, and every line of the written file is then checked against its length, in order.
 */
export async function writeLines(connection: DuckDBConnection, sql: string, path: string, what: string): Promise<Uint32Array> {
  const source = `SELECT line FROM (${sql}) AS lines(line)`;
  const lengths: number[] = [];
  for await (const chunk of streamChunks(connection, `SELECT strlen(line) FROM (${source})`)) {
    for (const length of chunk.getColumnValues(0) as (number | bigint | null)[]) {
      if (length === null) throw new Error(`${what} at line ${lengths.length + 1} has no JSON`);
      lengths.push(Number(length));
    }
  }
  // One thread for the copy: with more, DuckDB's writer holds finished batches until those
  // before them are written (the order is kept); one thread writes them as they come.
  const threads = (await connection.runAndReadAll(`SELECT current_setting('threads')`)).getRows()[0]![0];
  await connection.run(`SET threads = 1`);
  try {
    await connection.run(`COPY (${source}) TO '${path.replaceAll("'", "''")}' (FORMAT csv, HEADER false, QUOTE '', ESCAPE '', DELIMITER '\t')`);
  } finally {
    await connection.run(`SET threads = ${Number(threads)}`);
  }
  const written = Uint32Array.from(lengths);
  checkLines(path, written);
  return written;
}

/** Throws unless the file at `path` is exactly lines of `lengths` bytes, each followed by a newline. */
export function checkLines(path: string, lengths: Uint32Array): void {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(16 * 1024 * 1024);
    let line = 0;
    let lineStart = 0;
    let position = 0;
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, position);
      if (n === 0) break;
      for (let at = buffer.indexOf(0x0a, 0); at !== -1 && at < n; at = buffer.indexOf(0x0a, at + 1)) {
        const end = position + at;
        if (line >= lengths.length || end - lineStart !== lengths[line]) {
          throw new Error(`${path}: line ${line + 1} has ${end - lineStart} bytes, ${line < lengths.length ? `expected ${lengths[line]}` : `beyond the ${lengths.length} lines`}`);
        }
        line++;
        lineStart = end + 1;
      }
      position += n;
    }
    if (line !== lengths.length || lineStart !== position) {
      throw new Error(`${path}: ${line} whole lines${lineStart !== position ? ` and ${position - lineStart} bytes after them` : ''}, expected ${lengths.length} lines`);
    }
  } finally {
    closeSync(fd);
  }
}
