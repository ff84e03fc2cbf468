/**
 * Lines of text written to a file through one buffer: each text is encoded straight into the
 * buffer (no array of lines joined into a string, then encoded again when written), and the
 * buffer is written when the next text may not fit. The staging writer (a file per table) and
 * the serving files' streamLines (cli/build/line-files.ts: records, stored answers) write
 * through it.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { namingPath } from './errors.ts';

export class LineWriter {
  private readonly fd: number;
  private closed = false;
  private buffer: Buffer;
  private used = 0;
  private lastStart = 0;

  /** Creates (or truncates) `path`; `bufferBytes` is what is held before a write. */
  constructor(private readonly path: string, bufferBytes: number) {
    this.fd = openSync(path, 'w');
    this.buffer = Buffer.allocUnsafe(bufferBytes);
  }

  /** Appends `text` and a newline; returns the text's length in bytes. */
  write(text: string): number {
    // UTF-8 takes at most 3 bytes per UTF-16 unit; a text that may not fit is written after
    // what the buffer holds, in a buffer of its size when larger.
    const most = 3 * text.length + 1;
    if (this.used + most > this.buffer.length) {
      this.flush();
      if (most > this.buffer.length) this.buffer = Buffer.allocUnsafe(most);
    }
    const bytes = this.buffer.write(text, this.used);
    this.lastStart = this.used;
    this.used += bytes;
    this.buffer[this.used++] = 0x0a;
    return bytes;
  }

  /** The bytes of the text last written, without its newline: valid until the next write. */
  lastLine(): Buffer {
    return this.buffer.subarray(this.lastStart, this.used - 1);
  }

  private flush(): void {
    try {
      for (let at = 0; at < this.used; ) at += writeSync(this.fd, this.buffer, at, this.used - at);
    } catch (err) {
      // Node's write error names no file: the disk full was reported without saying which one.
      throw namingPath(err, this.path);
    }
    this.used = 0;
  }

  /**
   * Writes what the buffer holds and closes the file. A second call does nothing: a writer
   * closed again after a failed write closed the closed descriptor, and EBADF hid the failure.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.flush();
    } finally {
      closeSync(this.fd);
    }
  }
}
