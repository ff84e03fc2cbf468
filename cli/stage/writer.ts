/**
 * Writes staging rows as newline-delimited JSON, one file per table, which
 * `sql/01_stage.sql` loads with DuckDB's parallel JSON reader. NDJSON keeps parsers free of
 * any DuckDB binding and lets several parser processes write their own part files.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
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

  /** `part` names this writer's files, so several writers can share one stage folder. */
  constructor(private readonly dir: string, private readonly part = 'main') {
    for (const t of STAGE_TABLES) mkdirSync(join(dir, t), { recursive: true });
  }

  emit<T extends StageTableName>(table: T, row: StageTables[T]): void {
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
    part.write(stageLine(row));
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
