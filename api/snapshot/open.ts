/**
 * Opens one published snapshot for serving: an in-memory DuckDB database holding every table
 * of the snapshot under its view name (`cves`, `related_keys`, … — see SNAPSHOT_TABLES), loaded
 * from Parquet once, so requests never decode Parquet. The manifest comes along.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { SnapshotManifest } from '../../cli/build/manifest.ts';
import { SNAPSHOT_TABLES, snapshotsDir, tableReader } from '../../lib/snapshot-layout.ts';

export interface OpenSnapshot {
  buildId: string;
  dir: string;
  manifest: SnapshotManifest;
  instance: DuckDBInstance;
  connection: DuckDBConnection;
  /**
   * Side tables that could not be loaded (a damaged or missing file). They exist empty, so
   * queries run; endpoints name them (e.g. enrichment's `failed_sections`) instead of failing.
   */
  unreadableTables: Set<string>;
  close(): void;
}

export interface OpenOptions {
  threads?: number;
  memoryLimit?: string;
}

export async function openSnapshot(dataDir: string, buildId: string, opts: OpenOptions = {}): Promise<OpenSnapshot> {
  const dir = join(snapshotsDir(dataDir), buildId);
  const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as SnapshotManifest;
  const instance = await DuckDBInstance.create(':memory:', {
    threads: String(opts.threads ?? 2),
    memory_limit: opts.memoryLimit ?? '4GB',
  });
  const connection = await instance.connect();
  const unreadableTables = new Set<string>();
  for (const table of Object.keys(SNAPSHOT_TABLES)) {
    try {
      await connection.run(`CREATE TABLE "${table}" AS SELECT * FROM ${tableReader(dir, table)}`);
    } catch (err) {
      // Without the CVE table there is nothing to serve; any other table degrades one feature.
      if (table === 'cves') throw err;
      unreadableTables.add(table);
      await connection.run(`CREATE TABLE "${table}" AS SELECT * FROM (SELECT 1 AS unreadable) WHERE false`);
    }
  }
  return {
    unreadableTables,
    buildId,
    dir,
    manifest,
    instance,
    connection,
    close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}
