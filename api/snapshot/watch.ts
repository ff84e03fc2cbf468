/**
 * Notices when `<data>/CURRENT` changes (a build published a new snapshot). Two signals, since
 * neither is enough alone: `fs.watch` on the data folder reacts at once to the rename that
 * publishes, but is not delivered on every filesystem (network mounts, some containers) and
 * cannot watch a folder that does not exist yet; a periodic `stat` of CURRENT catches whatever
 * it misses, cheaply (no read unless the file's identity changed).
 */
import { watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { currentPointer } from '../../lib/snapshot-layout.ts';

export interface CurrentWatcher {
  close(): void;
}

/** Identity of the CURRENT file: publishing replaces it by rename, so the inode changes. */
async function signature(path: string): Promise<string> {
  try {
    const s = await stat(path);
    return `${s.ino}:${s.mtimeMs}:${s.size}`;
  } catch {
    return 'absent';
  }
}

/**
 * Calls `onChange` (never concurrently with itself is the caller's job) whenever CURRENT may
 * have changed. `tick` is also called on every periodic check, so the caller can retry work.
 */
export function watchCurrent(dataDir: string, onChange: () => void, intervalMs: number, tick?: () => void): CurrentWatcher {
  const pointer = currentPointer(dataDir);
  const name = basename(pointer);
  let watcher: FSWatcher | undefined;
  let last: string | undefined;
  let stopped = false;

  const startWatcher = () => {
    if (watcher || stopped) return;
    try {
      watcher = watch(dataDir, { persistent: false }, (_event, file) => {
        // Some platforms omit the file name: then any change in the folder is worth a look.
        if (file === null || file === name) onChange();
      });
      watcher.on('error', () => {
        // The folder went away or the watch broke: polling covers until it can be re-made.
        watcher?.close();
        watcher = undefined;
      });
    } catch {
      watcher = undefined;
    }
  };

  const poll = async () => {
    startWatcher();
    const now = await signature(pointer);
    if (stopped) return;
    if (last !== undefined && now !== last) onChange();
    last = now;
    tick?.();
  };

  startWatcher();
  void poll();
  const timer = setInterval(() => void poll(), intervalMs);
  timer.unref();
  return {
    close() {
      stopped = true;
      clearInterval(timer);
      watcher?.close();
      watcher = undefined;
    },
  };
}
