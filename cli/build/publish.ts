/**
 * Publishing a finished snapshot atomically (DESIGN §4): the complete folder is fsynced and
 * renamed into `snapshots/`, then `CURRENT` is replaced by rename. A reader sees the old
 * snapshot or the new one, never a partial one; a crash before the last rename changes nothing.
 */
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { currentPointer, readCurrentBuildId, snapshotsDir } from '../../lib/snapshot-layout.ts';

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The files at `paths` made durable, side by side (their fsyncs run in libuv's threads, not on
 * the main thread). The build calls it early on the files it has finished (the side tables'
 * Parquet, while the serving files are made), so that the publish finds little left to write.
 */
export async function fsyncFiles(paths: readonly string[]): Promise<void> {
  await Promise.all(
    paths.map(async (path) => {
      const handle = await open(path, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    }),
  );
}

/** Every file under `dir`, and the folders themselves, made durable. */
async function fsyncTree(dir: string): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  await Promise.all(entries.filter((e) => e.isDirectory()).map((e) => fsyncTree(join(dir, e.name))));
  await fsyncFiles(entries.filter((e) => !e.isDirectory()).map((e) => join(dir, e.name)));
  fsyncPath(dir);
}

export async function publishSnapshot(dataDir: string, builtDir: string, buildId: string): Promise<string> {
  const target = join(snapshotsDir(dataDir), buildId);
  await mkdir(snapshotsDir(dataDir), { recursive: true });
  await fsyncTree(builtDir);
  await rename(builtDir, target);
  fsyncPath(snapshotsDir(dataDir));
  const tmpPointer = `${currentPointer(dataDir)}.${process.pid}.tmp`;
  await writeFile(tmpPointer, `${buildId}\n`);
  fsyncPath(tmpPointer);
  await rename(tmpPointer, currentPointer(dataDir));
  fsyncPath(dataDir);
  return target;
}

/**
 * Keeps the `keep` newest snapshots (build ids sort by time) and never the published one's
 * neighbours only: the current snapshot is always kept, whatever its age.
 */
export async function pruneSnapshots(dataDir: string, keep: number): Promise<string[]> {
  const current = await readCurrentBuildId(dataDir);
  let names: string[];
  try {
    names = (await readdir(snapshotsDir(dataDir))).filter((n) => !n.startsWith('.'));
  } catch {
    return [];
  }
  const dirs: string[] = [];
  for (const n of names) if ((await stat(join(snapshotsDir(dataDir), n))).isDirectory()) dirs.push(n);
  dirs.sort().reverse();
  const removed: string[] = [];
  for (const name of dirs.slice(keep)) {
    if (name === current) continue;
    await rm(join(snapshotsDir(dataDir), name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
