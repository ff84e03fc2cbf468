/**
 * The bundled sample corpus (`data/sample/`), built once per test process and opened the way the
 * server opens a snapshot, for the resource query tests; plus damaged copies of it.
 */
import { cp, mkdtemp, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSnapshot, type OpenSnapshot } from '../../api/snapshot/open.ts';
import { currentPointer, SNAPSHOT_TABLES, snapshotsDir } from '../../lib/snapshot-layout.ts';
import { buildCorpus } from '../helpers/sample-snapshot.ts';

/** A fresh in-memory open of the sample snapshot: tests may add rows without touching others. */
export async function openSample(): Promise<OpenSnapshot> {
  const { dataDir, result } = await buildCorpus();
  return openSnapshot(dataDir, result.buildId, { threads: 1, memoryLimit: '512MB' });
}

/**
 * A data folder of its own holding a published copy of the sample snapshot whose Parquet files
 * for `tables` are cut to a few bytes, as a disk fault or an interrupted copy would leave them.
 */
export async function damagedSampleDataDir(tables: string[]): Promise<{ dataDir: string; buildId: string }> {
  const { dataDir, result } = await buildCorpus();
  const copy = await mkdtemp(join(tmpdir(), 'vulnintel-damaged-'));
  const dir = join(snapshotsDir(copy), result.buildId);
  await cp(join(snapshotsDir(dataDir), result.buildId), dir, { recursive: true });
  for (const table of tables) await truncate(join(dir, SNAPSHOT_TABLES[table]!), 7);
  await writeFile(currentPointer(copy), `${result.buildId}\n`);
  return { dataDir: copy, buildId: result.buildId };
}

/** Opens a damaged copy (damagedSampleDataDir) the way the server opens a snapshot. */
export async function openDamagedSample(tables: string[]): Promise<OpenSnapshot> {
  const { dataDir, buildId } = await damagedSampleDataDir(tables);
  return openSnapshot(dataDir, buildId, { threads: 1, memoryLimit: '512MB' });
}
