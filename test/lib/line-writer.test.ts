/**
 * LineWriter on a full disk: /dev/full refuses every write with ENOSPC, as a full file system
 * does, and needs no root.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LineWriter } from '../../lib/line-writer.ts';

describe.runIf(existsSync('/dev/full'))('LineWriter on a full disk', () => {
  it('names the file it could not write and says the disk is full; closing again is no second error', () => {
    const writer = new LineWriter('/dev/full', 16);
    writer.write('a line longer than the buffer');
    let failure: NodeJS.ErrnoException | undefined;
    try {
      // The staging worker closes its writer, and on a failure closes it again in its catch:
      // the second close closed the closed descriptor, and the build stopped on
      // "EBADF: bad file descriptor, close" with a stack, the disk's ENOSPC (which named no
      // file either) lost.
      writer.close();
    } catch (err) {
      failure = err as NodeJS.ErrnoException;
    }
    expect(failure?.code).toBe('ENOSPC');
    expect(failure?.path).toBe('/dev/full');
    expect(failure?.message).toBe("ENOSPC: no space left on device, write '/dev/full'");
    expect(() => writer.close()).not.toThrow();
  });
});
