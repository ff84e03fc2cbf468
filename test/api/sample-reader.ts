/**
 * The bundled sample corpus (`data/sample/`), built once per test process and opened the way the
 * server opens a snapshot, for the resource query tests; plus damaged copies of it.
 */
import { cp, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { openSnapshot, type OpenSnapshot } from '../../api/snapshot/open.ts';
import { SERVING_DB, servingDir } from '../../lib/serving-layout.ts';
import { currentPointer, SNAPSHOT_TABLES, snapshotsDir } from '../../lib/snapshot-layout.ts';
import { buildCorpus } from '../helpers/sample-snapshot.ts';

/** The sample snapshot opened the way the server opens it (its serving files, read-only). */
export async function openSample(): Promise<OpenSnapshot> {
  const { dataDir, result } = await buildCorpus();
  return openSnapshot(dataDir, result.buildId, { threads: 1, memoryLimit: '512MB' });
}

/**
 * An in-memory copy of an opened snapshot's serving database (the original is closed): tests may
 * add rows or replace tables without touching the files others read, and the build's answer
 * step (cli/build/answers.ts) may create its tables beside them.
 */
export async function inMemoryCopy(opened: OpenSnapshot): Promise<OpenSnapshot> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '1', memory_limit: '1GB' });
  const connection = await instance.connect();
  try {
    await connection.run(`ATTACH '${join(opened.servingDir, SERVING_DB)}' AS source (READ_ONLY)`);
    await connection.run(`COPY FROM DATABASE source TO memory`);
    await connection.run(`DETACH source`);
  } finally {
    opened.close();
  }
  return {
    ...opened,
    instance,
    connection,
    close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

/** An in-memory copy of the sample's serving database (inMemoryCopy). */
export async function openSampleCopy(): Promise<OpenSnapshot> {
  return inMemoryCopy(await openSample());
}

/**
 * A data folder of its own holding a published copy of the sample snapshot whose Parquet files
 * for `tables` are cut to a few bytes, as a disk fault or an interrupted copy would leave them,
 * and without serving files, so that opening it derives them from the damaged Parquet.
 */
export async function damagedSampleDataDir(tables: string[]): Promise<{ dataDir: string; buildId: string }> {
  const { dataDir, result } = await buildCorpus();
  const copy = await mkdtemp(join(tmpdir(), 'vulnintel-damaged-'));
  const dir = join(snapshotsDir(copy), result.buildId);
  await cp(join(snapshotsDir(dataDir), result.buildId), dir, { recursive: true });
  for (const table of tables) await truncate(join(dir, SNAPSHOT_TABLES[table]!), 7);
  // Served from the Parquet's damage: without serving files, opening derives them from it.
  await rm(servingDir(dir), { recursive: true, force: true });
  await writeFile(currentPointer(copy), `${result.buildId}\n`);
  return { dataDir: copy, buildId: result.buildId };
}

/** Opens a damaged copy (damagedSampleDataDir) the way the server opens a snapshot. */
export async function openDamagedSample(tables: string[]): Promise<OpenSnapshot> {
  const { dataDir, buildId } = await damagedSampleDataDir(tables);
  return openSnapshot(dataDir, buildId, { threads: 1, memoryLimit: '512MB' });
}
