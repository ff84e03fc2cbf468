/**
 * Writes staging rows as newline-delimited JSON, one file per table, which
 * `sql/01_stage.sql` loads with DuckDB's parallel JSON reader. NDJSON keeps parsers free of
 * any DuckDB binding and lets several parser processes write their own part files.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { RawFormatError } from '../../lib/errors.ts';
import { LineWriter } from '../../lib/line-writer.ts';
import { STAGE_TABLES, type StageSink, type StageTableName, type StageTables } from './tables.ts';

const FLUSH_BYTES = 1 << 20;

/** A string of a row as DuckDB's JSON reader takes it: a lone surrogate becomes U+FFFD. */
const wellFormed = (_key: string, value: unknown): unknown => (typeof value === 'string' ? (value as string & { toWellFormed(): string }).toWellFormed() : value);

/**
 * One staging row as JSON. A lone surrogate in upstream text (a raw `"\ud800"` escape: valid
 * JSON, no valid Unicode) is written by JSON.stringify as that escape, which DuckDB's reader
 * refuses ("no low surrogate"), failing the whole build; such a text is written with U+FFFD in
 * its place. The check is a substring search, the rewrite only for the rare line it finds.
 */
export function stageLine(row: object): string {
  const line = JSON.stringify(row);
  return line.includes('\\ud') ? JSON.stringify(row, wellFormed) : line;
}

/**
 * The longest staging line sql/01_stage.sql reads: DuckDB's read_json refuses a JSON object past
 * its `maximum_object_size`, 16 MiB by default.
 */
export const STAGE_LINE_MAX_BYTES = 16 * 1024 * 1024;

/**
 * A row too long for DuckDB's reader is refused here, naming the raw file and the record: a
 * record holding a text of some 17 MB (a description, a title) failed the build in its SQL,
 * with DuckDB's "maximum_object_size … exceeded" naming a staging file of the work folder,
 * which says nothing of the raw file or the record.
 */
function checkLineSize(table: string, row: object, line: string, rawPath: string): void {
  // A character is at most 3 UTF-8 bytes (4 for a surrogate pair's 2): most lines need no count.
  if (line.length * 3 <= STAGE_LINE_MAX_BYTES) return;
  const bytes = Buffer.byteLength(line);
  if (bytes <= STAGE_LINE_MAX_BYTES) return;
  const r = row as { cve_id?: unknown; advisory_id?: unknown; cwe_id?: unknown };
  const record = [r.cve_id, r.advisory_id, r.cwe_id].find((v): v is string => typeof v === 'string');
  const mb = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;
  throw new RawFormatError(rawPath, record, `too large to stage: its ${table} row is ${mb(bytes)}, past the ${mb(STAGE_LINE_MAX_BYTES)} the build reads per record`);
}

export class NdjsonStageWriter implements StageSink {
  private readonly parts = new Map<StageTableName, LineWriter>();
  private readonly fileIds = new Map<string, string>();

  /** The last path asked and its id: a record's rows come together and share one path string. */
  private lastPath: string | null = null;
  private lastId = '';

  private fileId(path: string): string {
    if (path === this.lastPath) return this.lastId;
    let id = this.fileIds.get(path);
    if (id === undefined) {
      id = `${this.part}:${String(this.fileIds.size).padStart(9, '0')}`;
      this.fileIds.set(path, id);
      this.emit('file', { id, path });
    }
    this.lastPath = path;
    this.lastId = id;
    return id;
  }

  /** The source folder being staged: the place named for a row too large that names no file (KEV, EPSS, exploits, CWE rows). */
  private source = '';

  /** The rows emitted from now on come from the source folder `dir`. */
  readingSource(dir: string): void {
    this.source = dir;
  }

  /** `part` names this writer's files, so several writers can share one stage folder. */
  constructor(private readonly dir: string, private readonly part = 'main') {
    for (const t of STAGE_TABLES) mkdirSync(join(dir, t), { recursive: true });
  }

  emit<T extends StageTableName>(table: T, row: StageTables[T]): void {
    const rawPath = 'file' in row && typeof row.file === 'string' ? row.file : this.source;
    if (table !== 'file' && 'file' in row) {
      // Raw paths repeat on every child row (~90 bytes); a short id keeps the NDJSON small and
      // the SQL joins on `file` cheap. Ids sort in reading order, like the paths they replace.
      (row as { file: string }).file = this.fileId((row as { file: string }).file);
    }
    let part = this.parts.get(table);
    if (!part) {
      part = new LineWriter(join(this.dir, table, `${this.part}.ndjson`), FLUSH_BYTES);
      this.parts.set(table, part);
    }
    const line = stageLine(row);
    checkLineSize(table, row, line, rawPath);
    part.write(line);
  }

  close(): void {
    for (const part of this.parts.values()) part.close();
    this.parts.clear();
  }
}

/** Keeps rows in memory: for parser unit tests. */
export class MemoryStageSink implements StageSink {
  readonly rows: { [T in StageTableName]: StageTables[T][] } = Object.fromEntries(
    STAGE_TABLES.map((t) => [t, []]),
  ) as unknown as { [T in StageTableName]: StageTables[T][] };

  emit<T extends StageTableName>(table: T, row: StageTables[T]): void {
    (this.rows[table] as StageTables[T][]).push(row);
  }
}
