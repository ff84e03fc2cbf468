/**
 * Builds a raw corpus (by default the bundled `data/sample/`) into a fresh temporary data
 * folder, once per test process per corpus, and returns where it was published.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { buildSnapshot } from '../../cli/build/build.ts';
import type { BuildResult } from '../../cli/build/options.ts';
import { resolveBuildOptions } from '../../cli/commands/build.ts';
import { readCurrentBuildId, snapshotsDir, tableReader } from '../../lib/snapshot-layout.ts';

export const SAMPLE_RAW = resolve(import.meta.dirname, '..', '..', 'data', 'sample');

const builds = new Map<string, Promise<{ dataDir: string; result: BuildResult }>>();

export function buildCorpus(rawDir = SAMPLE_RAW): Promise<{ dataDir: string; result: BuildResult }> {
  let pending = builds.get(rawDir);
  if (!pending) {
    pending = (async () => {
      process.env.VULNINTEL_QUIET = '1';
      const dataDir = await mkdtemp(join(tmpdir(), 'vulnintel-test-'));
      const options = await resolveBuildOptions({ raw: rawDir, data: dataDir, keep: 3 });
      const result = await buildSnapshot(options);
      return { dataDir, result };
    })();
    builds.set(rawDir, pending);
  }
  return pending;
}

/** A row of a built snapshot's `cves` table, its values as JSON gives them. */
export type CveRow = Record<string, any>;

/** The rows of one table of the snapshot built from `rawDir` (buildCorpus), in its file's order, values as JSON gives them. */
export async function snapshotTableRows(rawDir: string, table: string): Promise<Record<string, any>[]> {
  const { dataDir } = await buildCorpus(rawDir);
  const buildId = await readCurrentBuildId(dataDir);
  const db = await (await DuckDBInstance.create(':memory:')).connect();
  const reader = await db.runAndReadAll(`SELECT * FROM ${tableReader(join(snapshotsDir(dataDir), buildId!), table)}`);
  return reader.getRowObjectsJson() as Record<string, any>[];
}

/** The `cves` rows of the snapshot built from `rawDir` (buildCorpus), by CVE id. */
export async function builtCveRows(rawDir: string): Promise<Map<string, CveRow>> {
  return new Map((await snapshotTableRows(rawDir, 'cves')).map((r) => [r.cve_id as string, r]));
}
