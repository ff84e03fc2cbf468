/**
 * One fetch at a time per raw folder: the nightly `update` and the live poller share `raw/`, and
 * two writers on NVD's cursor would each skip the other's pages. The lock is a file holding the
 * owner's pid; a lock whose process is gone is stale and taken over.
 */
import { open, readFile, rm } from 'node:fs/promises';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

export class LockBusyError extends Error {
  constructor(
    readonly file: string,
    readonly pid: number,
  ) {
    super(`another vulnintel fetch (pid ${pid}) is using ${file}`);
    this.name = 'LockBusyError';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface Lock {
  release(): Promise<void>;
}

export async function acquireFetchLock(rawDir: string): Promise<Lock> {
  await mkdir(rawDir, { recursive: true });
  const file = join(rawDir, '_fetch.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(file, 'wx');
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return { release: () => rm(file, { force: true }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
      if (pid && pid !== process.pid && alive(pid)) throw new LockBusyError(file, pid);
      await rm(file, { force: true }); // stale: its owner died without releasing it
    }
  }
  throw new LockBusyError(file, 0);
}
