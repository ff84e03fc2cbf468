/**
 * A build that fails on a full disk (ENOSPC) at any of its writes: the published snapshot and
 * CURRENT stay as they were, the work folder and the build lock are removed, and the failure is
 * an error naming the file, never a crash that leaves them behind. The disk is made full by an
 * injected failure (a tmpfs needs root) or by /dev/full, which refuses every write with ENOSPC.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CliError } from '../../lib/errors.ts';
import { readCurrentBuildId, snapshotsDir } from '../../lib/snapshot-layout.ts';
import { writeCorpus, NVD } from '../helpers/raw-corpus.ts';

process.env.VULNINTEL_QUIET = '1';

/** When set, the CVEs' Parquet fails at once, as DuckDB's COPY does when the disk is full. */
const failure = vi.hoisted(() => ({ cvesParquet: null as Error | null, serving: null as Error | null }));

vi.mock('../../cli/build/serving.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../cli/build/serving.ts')>();
  return {
    ...original,
    writeServingFiles: (...args: Parameters<typeof original.writeServingFiles>) =>
      failure.serving ? Promise.reject(failure.serving) : original.writeServingFiles(...args),
  };
});

vi.mock('../../cli/build/sql-steps.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../cli/build/sql-steps.ts')>();
  return {
    ...original,
    writeCvesParquet: (...args: Parameters<typeof original.writeCvesParquet>) =>
      failure.cvesParquet ? Promise.reject(failure.cvesParquet) : original.writeCvesParquet(...args),
  };
});

const { buildSnapshot, stageSources } = await import('../../cli/build/build.ts');
const { STAGE_TABLES } = await import('../../cli/stage/tables.ts');
const { resolveBuildOptions } = await import('../../cli/commands/build.ts');

async function build(raw: string, data: string) {
  return buildSnapshot(await resolveBuildOptions({ raw, data, keep: 3 }));
}

afterEach(() => {
  failure.cvesParquet = null;
  failure.serving = null;
});

describe('a build on a full disk', () => {
  it('the CVEs\' Parquet failing beside the serving step fails the build, not the process: work folder and lock removed, CURRENT kept', async () => {
    const raw = await writeCorpus({
      nvd: [{ id: 'CVE-2025-30001', metrics: [{ version: '3.1', source: NVD, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', score: 9.8 }] }],
    });
    const data = await mkdtemp(join(tmpdir(), 'vulnintel-full-'));
    const good = await build(raw, data);
    // Its rejection had no handler until the serving step reached it: Node ended the process
    // (an unhandled rejection), with the work folder and _build.lock left behind, and a poller
    // rebuilding on a full disk died with it.
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const diskFull = 'build step sql/09_write_cves.sql failed: IO Error: Could not write file "cves_0.parquet": No space left on device';
      failure.cvesParquet = new CliError(diskFull);
      const refused = await build(raw, data).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 50));
      expect(unhandled).toEqual([]);
      expect(refused).toBeInstanceOf(CliError);
      expect((refused as Error).message).toBe(diskFull);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(await readCurrentBuildId(data)).toBe(good.buildId);
    expect(await readdir(snapshotsDir(data))).toEqual([good.buildId]);
    expect((await readdir(data)).filter((n) => n.startsWith('.build-') || n === '_build.lock')).toEqual([]);
    expect(existsSync(join(snapshotsDir(data), good.buildId, 'manifest.json'))).toBe(true);
    // Space freed, the next build publishes.
    failure.cvesParquet = null;
    const next = await build(raw, data);
    expect(await readCurrentBuildId(data)).toBe(next.buildId);
  });


  it('DuckDB failing to write the serving files is a one-line error naming the file, the disk full', async () => {
    const raw = await writeCorpus({ nvd: [{ id: 'CVE-2025-30003' }] });
    const data = await mkdtemp(join(tmpdir(), 'vulnintel-full-'));
    const good = await build(raw, data);
    // DuckDB's words when serving.duckdb cannot be written (a 40 MB tmpfs, 3 MB free): it
    // escaped the build as an uncaught Error, with a stack.
    const file = join(data, '.build-x', 'x', 'serving.tmp-1', 'serving.duckdb');
    failure.serving = new Error(`IO Error: Detached database 'serving', but CHECKPOINT during DETACH failed. \nCheckpoint failed for database "serving". The database has been invalidated. Original error: Could not write file "${file}": No space left on device`);
    const refused = await build(raw, data).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CliError);
    expect((refused as Error).message).toBe(`serving files failed: Checkpoint failed for database "serving". The database has been invalidated. Original error: Could not write file "${file}": No space left on device`);
    expect(await readCurrentBuildId(data)).toBe(good.buildId);
    expect((await readdir(data)).filter((n) => n.startsWith('.build-') || n === '_build.lock')).toEqual([]);
  });
});

describe.runIf(existsSync('/dev/full'))('staging on a full disk', () => {
  it('the staging workers\' ENOSPC reaches the build as a file system error naming the staged file', async () => {
    const raw = await writeCorpus({
      nvd: [{ id: 'CVE-2025-30002', metrics: [{ version: '3.1', source: NVD, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', score: 9.8 }] }],
    });
    // The NVD rows' staged file is /dev/full, which refuses each write with ENOSPC.
    const stage = await mkdtemp(join(tmpdir(), 'vulnintel-full-stage-'));
    for (const table of STAGE_TABLES) await mkdir(join(stage, table));
    const full = join(stage, 'nvd_cve', 'lane0.ndjson');
    await symlink('/dev/full', full);
    const failed = (await stageSources(raw, stage).catch((e: unknown) => e)) as NodeJS.ErrnoException;
    // It was "EBADF: bad file descriptor, close" (the worker closed its files twice), and a
    // worker's error reached the build as a plain Error: the CLI printed a stack, no file named.
    expect(failed).toBeInstanceOf(Error);
    expect(failed.code).toBe('ENOSPC');
    expect(failed.syscall).toBe('write');
    expect(failed.path).toBe(full);
    expect(failed.message).toBe(`ENOSPC: no space left on device, write '${full}'`);
  });
});
