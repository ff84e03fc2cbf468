/**
 * Opens one published snapshot for serving, from its serving files (cli/build/serving.ts,
 * sql/11_serving.sql): the DuckDB database file `serving.duckdb`, opened read-only, so opening
 * costs milliseconds and memory holds only the blocks queries read (within `memoryLimit`, the
 * rest stays on disk and in the OS page cache), and `records.ndjson`, the record bytes
 * (records.ts). A snapshot without serving files (built by an older version) has them derived
 * first, once. The manifest comes along.
 *
 * The tables are those of the snapshot under their view names (`products`, `related_keys`, …),
 * three of them reshaped for the API (see sql/11_serving.sql): `cves` without `record_json`
 * and with `doc` (position in the default order) and `id_rank`; `search_postings`;
 * `search_text`.
 */
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { SnapshotManifest } from '../../cli/build/manifest.ts';
import { ensureServingFiles } from '../../cli/build/serving.ts';
import { SERVING_DB, type ServingManifest } from '../../lib/serving-layout.ts';
import { snapshotsDir } from '../../lib/snapshot-layout.ts';

export interface OpenSnapshot {
  buildId: string;
  dir: string;
  /** The folder of the serving files (records.ndjson, serving.duckdb). */
  servingDir: string;
  manifest: SnapshotManifest;
  serving: ServingManifest;
  /** True when this open derived the serving files (a snapshot that came without them). */
  derivedServingFiles: boolean;
  instance: DuckDBInstance;
  /** The connection the snapshot was opened with; requests use the pool (pool.ts) instead. */
  connection: DuckDBConnection;
  /**
   * Snapshot tables that could not be read (a damaged Parquet file when the serving files were
   * derived). They exist empty, so queries run; endpoints name them (e.g. enrichment's
   * `failed_sections`) instead of failing.
   */
  unreadableTables: Set<string>;
  close(): void;
}

export interface OpenOptions {
  threads?: number;
  /** DuckDB's buffer pool for this snapshot (default 512MB): what it may cache of the file. */
  memoryLimit?: string;
}

export const DEFAULT_SERVING_MEMORY = '512MB';

export async function openSnapshot(dataDir: string, buildId: string, opts: OpenOptions = {}): Promise<OpenSnapshot> {
  const dir = join(snapshotsDir(dataDir), buildId);
  const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as SnapshotManifest;
  const serving = await ensureServingFiles(dir, buildId, { threads: opts.threads });
  const instance = await DuckDBInstance.create(join(serving.dir, SERVING_DB), {
    access_mode: 'READ_ONLY',
    threads: String(opts.threads ?? 2),
    memory_limit: opts.memoryLimit ?? DEFAULT_SERVING_MEMORY,
    // Spill (if ever) under the system temp folder, never into the server's working directory
    // (DuckDB's default is `./.tmp`).
    temp_directory: join(tmpdir(), `vulnintel-serve-${process.pid}`),
  });
  let connection: DuckDBConnection;
  try {
    connection = await instance.connect();
  } catch (err) {
    instance.closeSync();
    throw err;
  }
  return {
    unreadableTables: new Set(serving.manifest.unreadable_tables),
    buildId,
    dir,
    servingDir: serving.dir,
    manifest,
    serving: serving.manifest,
    derivedServingFiles: serving.derived,
    instance,
    connection,
    close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}
