/**
 * Opens one published snapshot for serving: an in-memory DuckDB database holding the snapshot's
 * tables, loaded from Parquet once, so requests never decode Parquet. The manifest comes along.
 *
 * Three tables are reshaped on load, for speed and memory (340,000 CVEs):
 *   - `cves`: every column of the snapshot except `record_json`, plus `doc` (INTEGER), the row's
 *     position in the default order (published DESC, cve_id DESC; 0 = newest). `ORDER BY doc`
 *     is the published order and an integer sort. Likewise `id_rank` (INTEGER), the position
 *     in `cve_id DESC` order: the tie-break of every sort, compared as an integer instead of
 *     as text. The record JSON bytes live in JS instead (`records.ts`), so each is held once.
 *   - `search_postings (term, doc, active)` replaces the snapshot's `search_terms` (term,
 *     cve_id, published, status): the same inverted index with the CVE as its `doc` number.
 *   - `search_text (doc, text)` replaces `search_docs`: the normalised text, for phrase tests.
 * Every other table is loaded as it is, under its view name (`products`, `related_keys`, …).
 */
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { SnapshotManifest } from '../../cli/build/manifest.ts';
import { SNAPSHOT_TABLES, snapshotsDir, tableReader } from '../../lib/snapshot-layout.ts';

export interface OpenSnapshot {
  buildId: string;
  dir: string;
  manifest: SnapshotManifest;
  instance: DuckDBInstance;
  /** The connection the tables were loaded with; requests use the pool (pool.ts) instead. */
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

/** Tables loaded under another shape (see the header); never loaded as they are. */
const RESHAPED = new Set(['cves', 'search_terms', 'search_docs']);

/** Snapshot table → the in-memory table holding its data, for `unreadableTables`. */
const SEARCH_TABLES: Record<string, { name: string; sql: (reader: string) => string; empty: string }> = {
  search_terms: {
    name: 'search_postings',
    // Stored by term (then doc): a term's postings sit in a few row groups, so min/max pruning
    // makes `term = ?` read only those (the join alone does not keep the file's order).
    sql: (reader) =>
      `CREATE TABLE search_postings AS SELECT t.term, c.doc, t.status = 'active' AS active FROM ${reader} t JOIN cves c ON c.cve_id = t.cve_id ORDER BY t.term, c.doc`,
    empty: `CREATE TABLE search_postings (term VARCHAR, doc INTEGER, active BOOLEAN)`,
  },
  search_docs: {
    name: 'search_text',
    sql: (reader) => `CREATE TABLE search_text AS SELECT c.doc, d.text FROM ${reader} d JOIN cves c USING (cve_id) ORDER BY c.doc`,
    empty: `CREATE TABLE search_text (doc INTEGER, text VARCHAR)`,
  },
};

export async function openSnapshot(dataDir: string, buildId: string, opts: OpenOptions = {}): Promise<OpenSnapshot> {
  const dir = join(snapshotsDir(dataDir), buildId);
  const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as SnapshotManifest;
  const instance = await DuckDBInstance.create(':memory:', {
    threads: String(opts.threads ?? 2),
    memory_limit: opts.memoryLimit ?? '4GB',
    // Spill (if ever) under the system temp folder, never into the server's working directory
    // (DuckDB's default is `./.tmp`).
    temp_directory: join(tmpdir(), `vulnintel-serve-${process.pid}`),
  });
  const connection = await instance.connect();
  try {
    const unreadableTables = new Set<string>();
    // Without the CVE table there is nothing to serve: its failure fails the open. The ranks
    // are computed on the two key columns alone, so the wide rows are sorted once, not per rank.
    const cves = tableReader(dir, 'cves');
    await connection.run(
      `CREATE TEMP TABLE cve_keys AS
       SELECT cve_id,
              CAST(row_number() OVER (ORDER BY published DESC, cve_id DESC) - 1 AS INTEGER) AS doc,
              CAST(row_number() OVER (ORDER BY cve_id DESC) - 1 AS INTEGER) AS id_rank
       FROM (SELECT cve_id, published FROM ${cves})`,
    );
    await connection.run(
      `CREATE TABLE cves AS
       SELECT c.* EXCLUDE (record_json), k.doc, k.id_rank
       FROM ${cves} c JOIN cve_keys k USING (cve_id)
       ORDER BY k.doc`,
    );
    await connection.run(`DROP TABLE cve_keys`);
    for (const [table, search] of Object.entries(SEARCH_TABLES)) {
      try {
        await connection.run(search.sql(tableReader(dir, table)));
      } catch {
        unreadableTables.add(table);
        await connection.run(`DROP TABLE IF EXISTS ${search.name}`);
        await connection.run(search.empty);
      }
    }
    for (const table of Object.keys(SNAPSHOT_TABLES)) {
      if (RESHAPED.has(table)) continue;
      try {
        await connection.run(`CREATE TABLE "${table}" AS SELECT * FROM ${tableReader(dir, table)}`);
      } catch {
        // Any other table degrades one feature, never the whole snapshot.
        unreadableTables.add(table);
        await connection.run(`DROP TABLE IF EXISTS "${table}"`);
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
  } catch (err) {
    connection.closeSync();
    instance.closeSync();
    throw err;
  }
}
