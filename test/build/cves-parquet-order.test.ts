/**
 * The CVEs' Parquet keeps the published order (DESIGN §4, README: `cves/year=YYYY/*.parquet`,
 * "sorted published DESC, cve_id DESC") at any size. DuckDB's partitioned COPY (PARTITION_BY)
 * writes the row groups of a year that two threads scanned in whichever order they finish: at
 * 120,000 synthetic CVEs the 2019 file held its last days of December after its first of
 * January. The sample (83 CVEs, one row group) never showed it; 250,000 narrow rows spanning
 * the build table's row groups do, in about a second.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { createBuildDatabase, writeCvesParquet } from '../../cli/build/sql-steps.ts';
import { tableReader } from '../../lib/snapshot-layout.ts';

const ROWS = 250_000;

describe('the CVEs Parquet files', () => {
  let dir: string;
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vulnintel-cves-order-'));
    instance = await createBuildDatabase(dir);
    connection = await instance.connect();
    // `cves` as step 4 leaves it: in the published order, `year` last. Two years, the second
    // starting well past the first row group (122,880 rows); one CVE without a publication time.
    await connection.run(`
      CREATE TABLE cves AS
      SELECT *, CAST(year(published) AS INTEGER) AS year FROM (
        SELECT printf('CVE-%d-%07d', 2019 + (i < 200000)::INTEGER, i) AS cve_id,
               TIMESTAMP '2020-06-01' - to_seconds(i * 60) AS published,
               repeat('x', 40) AS record_json
        FROM range(${ROWS}) t(i)
        UNION ALL SELECT 'CVE-2021-0001', NULL, 'y'
      )
      ORDER BY published DESC NULLS LAST, cve_id DESC`);
    await writeCvesParquet(connection, { out: dir });
  });

  afterAll(async () => {
    connection?.closeSync();
    instance?.closeSync();
    await rm(dir, { recursive: true, force: true });
  });

  it('are hive-partitioned by year, every row once, the partition column not stored', async () => {
    const folders = (await readdir(join(dir, 'cves'))).sort();
    expect(folders).toEqual(['year=2019', 'year=2020', 'year=__HIVE_DEFAULT_PARTITION__']);
    const perYear = (from: string) => connection.runAndReadAll(`SELECT year, count(*)::INTEGER AS n FROM ${from} GROUP BY ALL ORDER BY year NULLS LAST`).then((r) => r.getRowObjectsJson());
    expect(await perYear(tableReader(dir, 'cves'))).toEqual(await perYear('cves'));
    const stored = await connection.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM parquet_schema('${join(dir, 'cves', 'year=2019', '*.parquet')}') WHERE name = 'year'`);
    expect(stored.getRowObjectsJson()).toEqual([{ n: 0 }]);
  });

  it('hold their rows in the published order, newest first', async () => {
    const disorder = await connection.runAndReadAll(`
      SELECT filename, count(*)::INTEGER AS n FROM (
        SELECT filename,
               lag(published) OVER w < published OR (lag(published) OVER w = published AND lag(cve_id) OVER w < cve_id) AS out_of_order
        FROM read_parquet('${join(dir, 'cves', '*', '*.parquet')}', filename = true, file_row_number = true)
        WINDOW w AS (PARTITION BY filename ORDER BY file_row_number)
      ) WHERE out_of_order GROUP BY filename`);
    expect(disorder.getRowObjectsJson()).toEqual([]);
  });
});
