/**
 * An exclusive lock held by a process on a folder: a file holding the owner's pid, created with
 * O_EXCL. A lock whose process is gone is stale and taken over, so a crash never leaves a folder
 * locked for good. Used by fetch/update/poll on the raw folder (cli/fetch/lock.ts) and by the
 * build on the data folder (cli/build/build.ts).
 *
 * Nothing waits for a lock: a second holder is refused at once with the owner's pid. Waiting
 * would be the only way two of these locks could deadlock (update holds the raw folder's while
 * it builds into the data folder).
 */
import { mkdir, open, readFile, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CliError, namingPath } from './errors.ts';

/** Refused: another live process holds the lock (`pid`; 0 when it is still writing its pid). */
export class LockBusyError extends CliError {
  constructor(
    readonly file: string,
    readonly pid: number,
    message: string,
  ) {
    super(message);
    this.name = 'LockBusyError';
  }
}

export interface Lock {
  release(): Promise<void>;
}

/**
 * A lock file created but not yet holding a pid is its owner between open and write: a file
 * that stays so longer than this is left over from a crash at that moment.
 */
const PID_WRITE_GRACE_MS = 10_000;

/** Lock files this process holds: its own pid in a file is then no leftover of an earlier process. */
const held = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whoever holds `file` now, or null when it is stale (or gone). */
async function holder(file: string): Promise<number | null> {
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null) return null;
  const pid = Number(text.trim());
  if (!Number.isInteger(pid) || pid <= 0) {
    const mtime = (await stat(file).catch(() => null))?.mtimeMs;
    return mtime !== undefined && Date.now() - mtime < PID_WRITE_GRACE_MS ? 0 : null;
  }
  if (pid === process.pid) return held.has(file) ? pid : null; // a container restarted with the same pid
  return alive(pid) ? pid : null;
}

/**
 * Takes the lock `file`, or throws LockBusyError with `busy(owner)` as its message; `owner` is
 * `pid 1234` (or says the owner is still writing its pid).
 */
export async function acquirePidLock(file: string, busy: (owner: string) => string): Promise<Lock> {
  const refuse = (pid: number) => new LockBusyError(file, pid, busy(pid > 0 ? `pid ${pid}` : 'pid not written yet'));
  await mkdir(dirname(file), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    let handle;
    try {
      handle = await open(file, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = await holder(file);
      if (pid !== null) throw refuse(pid);
      await rm(file, { force: true }); // stale: its owner died without releasing it
      continue;
    }
    held.add(file);
    const release = async () => {
      held.delete(file);
      await rm(file, { force: true });
    };
    try {
      await handle.writeFile(`${process.pid}\n`);
    } catch (err) {
      await release();
      // The disk full: Node's write error names no file, and the command stopped with a stack.
      throw namingPath(err, file);
    } finally {
      await handle.close();
    }
    return { release };
  }
  throw refuse(0);
}
