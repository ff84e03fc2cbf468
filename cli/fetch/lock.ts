/**
 * One fetch at a time per raw folder: the nightly `update` and the live poller share `raw/`, and
 * two writers on NVD's cursor would each skip the other's pages. The lock (lib/pid-lock.ts) is a
 * file holding the owner's pid; a lock whose process is gone is stale and taken over.
 */
import { join } from 'node:path';
import { acquirePidLock, type Lock } from '../../lib/pid-lock.ts';

export { LockBusyError, type Lock } from '../../lib/pid-lock.ts';

export function acquireFetchLock(rawDir: string): Promise<Lock> {
  const file = join(rawDir, '_fetch.lock');
  return acquirePidLock(file, (owner) => `another vulnintel fetch (${owner}) is using ${file}`);
}
