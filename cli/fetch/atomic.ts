/**
 * Atomic file replacement: write beside the target under a dot-name (every raw reader skips
 * names starting with `.`), fsync, then rename over the target. A crash or a failed check
 * leaves the previous file untouched.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { namingPath } from '../../lib/errors.ts';

/** A temporary path in the same folder as `dest` (same filesystem, so rename is atomic). */
export function tempPathFor(dest: string): string {
  return join(dirname(dest), `.${basename(dest)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

export async function writeFileAtomic(dest: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(dest), { recursive: true });
  const tmp = tempPathFor(dest);
  try {
    const handle = await open(tmp, 'w');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } catch (err) {
      // The disk full: Node's write error names no file (a status or a cursor not saved).
      throw namingPath(err, tmp);
    } finally {
      await handle.close();
    }
    await rename(tmp, dest);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

export async function writeJsonAtomic(dest: string, value: unknown): Promise<void> {
  await writeFileAtomic(dest, `${JSON.stringify(value, null, 2)}\n`);
}

/** Moves a verified temporary file into place (same folder), creating the folder if needed. */
export async function moveIntoPlace(tmp: string, dest: string): Promise<void> {
  await mkdir(dirname(dest), { recursive: true });
  await rename(tmp, dest);
}
