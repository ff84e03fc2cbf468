/**
 * A file of JSON answers, one per line, written once by the build (cli/build/serving.ts) and
 * read by positioned reads: the bytes stay on disk and in the OS page cache, never in the
 * replica's heap. Only the line lengths are held (4 bytes a line) and the offsets derived from
 * them. Line `i` is the answer of item `i` (a CVE's doc, an advisory's position).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

export class LineFile {
  private fd: number | null;
  /** The whole file, when held in memory (see the constructor's `held`). */
  private heldBytes: Buffer | null = null;
  /** Byte offset of each line (Float64: a file may pass 4 GB). */
  private readonly offsets: Float64Array;

  /**
   * `held`: read the whole file into one buffer once, for a small file read many times per
   * request (the related briefs: some 30 lines an answer, where a read each cost more than the
   * rest of the answer). Held or not, its size must be that of its lines, or the file is refused.
   */
  constructor(
    readonly path: string,
    /** Bytes of each line without its newline. */
    private readonly lengths: Uint32Array,
    held = false,
  ) {
    this.offsets = new Float64Array(lengths.length);
    let offset = 0;
    for (let i = 0; i < lengths.length; i++) {
      this.offsets[i] = offset;
      offset += lengths[i]! + 1;
    }
    this.fd = openSync(path, 'r');
    // Checked whether held or not: a file cut short (a copy to this host still running, a full
    // disk) was opened and swapped in, and every line past the cut answered 500; a file of
    // another size is refused here, so the store keeps serving the snapshot it has.
    const size = fstatSync(this.fd).size;
    if (size !== offset) {
      closeSync(this.fd);
      throw new Error(`${path}: ${size} bytes, its ${lengths.length} lines make ${offset}`);
    }
    if (held) {
      this.heldBytes = Buffer.allocUnsafe(size);
      readFully(this.fd, path, this.heldBytes, 0, 0, size);
    }
  }

  get size(): number {
    return this.lengths.length;
  }

  /** The size in bytes of line `i` (without its newline). */
  lengthOf(i: number): number {
    return this.lengths[i]!;
  }

  /** The bytes of line `i`, without its newline (a buffer of its own). */
  bytes(i: number): Buffer {
    const length = this.lengths[i];
    if (length === undefined) throw new RangeError(`${this.path}: no line ${i}`);
    const out = Buffer.allocUnsafe(length);
    this.readInto(out, 0, this.offsets[i]!, length);
    return out;
  }

  /** Copies line `i` (without its newline) into `out` at `at`: lengthOf(i) bytes. */
  copyLine(i: number, out: Buffer, at: number): void {
    const length = this.lengths[i];
    if (length === undefined) throw new RangeError(`${this.path}: no line ${i}`);
    this.readInto(out, at, this.offsets[i]!, length);
  }

  /**
   * Lines `items`, each with its newline, in the order given: each run of consecutive items is
   * one read, since the file holds them in that order.
   */
  lines(items: readonly number[]): Buffer {
    let size = 0;
    for (const i of items) {
      const length = this.lengths[i];
      if (length === undefined) throw new RangeError(`${this.path}: no line ${i}`);
      size += length + 1;
    }
    const out = Buffer.allocUnsafe(size);
    let at = 0;
    for (let k = 0; k < items.length; ) {
      let j = k + 1;
      while (j < items.length && items[j] === items[j - 1]! + 1) j++;
      const start = this.offsets[items[k]!]!;
      const last = items[j - 1]!;
      const length = this.offsets[last]! + this.lengths[last]! + 1 - start;
      this.readInto(out, at, start, length);
      at += length;
      k = j;
    }
    return out;
  }

  /** Closes the file; only once nobody reads it (the snapshot's last request has ended). */
  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    this.heldBytes = null;
  }

  private readInto(out: Buffer, at: number, position: number, length: number): void {
    if (this.fd === null) throw new Error(`${this.path} is closed`);
    if (this.heldBytes !== null) this.heldBytes.copy(out, at, position, position + length);
    else readFully(this.fd, this.path, out, at, position, length);
  }
}

/** `length` bytes of the file at `position` into `out` at `at` (a read may return fewer: reads until done). */
export function readFully(fd: number, path: string, out: Uint8Array, at: number, position: number, length: number): void {
  let read = 0;
  while (read < length) {
    const n = readSync(fd, out, at + read, length - read, position + read);
    if (n === 0) throw new Error(`${path} ends before byte ${position + length}`);
    read += n;
  }
}
