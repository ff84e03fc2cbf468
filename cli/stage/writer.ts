/**
 * Writes staging rows as newline-delimited JSON, one file per table, which
 * `sql/01_stage.sql` loads with DuckDB's parallel JSON reader. NDJSON keeps parsers free of
 * any DuckDB binding and lets several parser processes write their own part files.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { STAGE_TABLES, type StageSink, type StageTableName, type StageTables } from './tables.ts';

const FLUSH_BYTES = 1 << 20;

export class NdjsonStageWriter implements StageSink {
  private readonly fds = new Map<StageTableName, number>();
  private readonly buffers = new Map<StageTableName, string[]>();
  private readonly sizes = new Map<StageTableName, number>();
  private readonly fileIds = new Map<string, string>();

  private fileId(path: string): string {
    let id = this.fileIds.get(path);
    if (id === undefined) {
      id = `${this.part}:${String(this.fileIds.size).padStart(9, '0')}`;
      this.fileIds.set(path, id);
      this.emit('file', { id, path });
    }
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
    const line = JSON.stringify(row);
    let buf = this.buffers.get(table);
    if (!buf) this.buffers.set(table, (buf = []));
    buf.push(line);
    const size = (this.sizes.get(table) ?? 0) + line.length + 1;
    this.sizes.set(table, size);
    if (size >= FLUSH_BYTES) this.flush(table);
  }

  private flush(table: StageTableName): void {
    const buf = this.buffers.get(table);
    if (!buf || buf.length === 0) return;
    let fd = this.fds.get(table);
    if (fd === undefined) {
      fd = openSync(join(this.dir, table, `${this.part}.ndjson`), 'w');
      this.fds.set(table, fd);
    }
    writeSync(fd, buf.join('\n') + '\n');
    this.buffers.set(table, []);
    this.sizes.set(table, 0);
  }

  close(): void {
    for (const t of STAGE_TABLES) this.flush(t);
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
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
