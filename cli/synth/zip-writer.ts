/**
 * A minimal streaming zip writer (PKWARE APPNOTE 6.3) for entries compressed ahead of time:
 * local header + deflated data per entry, then the central directory, with ZIP64 end records
 * when an archive holds more than 65,535 entries (the CVE List zip holds 340,000 at full
 * scale) or passes 4 GiB.
 *
 * Why not fflate's `Zip`: it writes the entry count as 16 bits and no ZIP64 records, so
 * yauzl (cli/raw/documents.ts) reads 340,000 mod 65,536 = 12,320 entries of the full corpus;
 * it also keeps ~1 KB of bookkeeping per entry. Here an entry costs its central-directory
 * record (~90 bytes), kept until the end.
 */

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL = 0x06054b50;
const ZIP64_END = 0x06064b50;
const ZIP64_LOCATOR = 0x07064b50;
const DEFLATE = 8;
const U16_MAX = 0xffff;
const U32_MAX = 0xffffffff;

/** MS-DOS date and time fields of a UTC instant (zip stores no zone). */
export function dosDateTime(ms: number): { date: number; time: number } {
  const d = new Date(ms);
  return {
    date: ((d.getUTCFullYear() - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | (d.getUTCSeconds() >> 1),
  };
}

export interface ZipSink {
  /** Returns false when the sink wants the writer to wait for `drain`. */
  write(chunk: Uint8Array): boolean;
}

export class StreamingZip {
  private offset = 0;
  private entries = 0;
  /** Central directory records, packed into 1 MiB chunks (no per-entry objects kept). */
  private central: Buffer[] = [];
  private chunk = Buffer.allocUnsafe(1 << 20);
  private chunkUsed = 0;
  private centralBytes = 0;
  private readonly dos: { date: number; time: number };

  constructor(private readonly sink: ZipSink, mtime: number) {
    this.dos = dosDateTime(mtime);
  }

  /** Local headers and data not yet handed to the sink (written in one piece by `flush`). */
  private pending: Uint8Array[] = [];

  /**
   * Queues one entry; `data` is the raw-deflated content. Call `flush` to write the queued
   * entries: one sink write per batch instead of two per entry.
   */
  add(name: string, size: number, crc: number, data: Uint8Array): void {
    const nameBytes = Buffer.from(name, 'utf8');
    if (size > U32_MAX || data.length > U32_MAX) throw new Error(`zip entry ${name} is over 4 GiB`);
    const local = Buffer.alloc(30 + nameBytes.length);
    local.writeUInt32LE(LOCAL_HEADER, 0);
    local.writeUInt16LE(20, 4); // version needed: 2.0 (deflate)
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(DEFLATE, 8);
    local.writeUInt16LE(this.dos.time, 10);
    local.writeUInt16LE(this.dos.date, 12);
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    local.writeUInt16LE(0, 28);
    nameBytes.copy(local, 30);
    this.centralRecord(nameBytes, size, crc, data.length, this.offset);
    this.pending.push(local, data);
    this.offset += local.length + data.length;
    this.entries++;
  }

  /** Writes the queued entries; returns the sink's backpressure signal. */
  flush(): boolean {
    if (this.pending.length === 0) return true;
    const chunk = Buffer.concat(this.pending);
    this.pending = [];
    return this.sink.write(chunk);
  }

  private centralRecord(name: Buffer, size: number, crc: number, compressed: number, offset: number): void {
    // Entries starting past 4 GiB carry their offset in a ZIP64 extra field.
    const zip64 = offset >= U32_MAX;
    const extra = zip64 ? 12 : 0;
    const length = 46 + name.length + extra;
    if (this.chunkUsed + length > this.chunk.length) {
      this.central.push(this.chunk.subarray(0, this.chunkUsed));
      this.chunk = Buffer.allocUnsafe(Math.max(1 << 20, length));
      this.chunkUsed = 0;
    }
    const rec = this.chunk.subarray(this.chunkUsed, this.chunkUsed + length);
    rec.fill(0);
    rec.writeUInt32LE(CENTRAL_HEADER, 0);
    rec.writeUInt16LE(zip64 ? 45 : 20, 4); // version made by (MS-DOS)
    rec.writeUInt16LE(zip64 ? 45 : 20, 6); // version needed
    rec.writeUInt16LE(0x0800, 8);
    rec.writeUInt16LE(DEFLATE, 10);
    rec.writeUInt16LE(this.dos.time, 12);
    rec.writeUInt16LE(this.dos.date, 14);
    rec.writeUInt32LE(crc >>> 0, 16);
    rec.writeUInt32LE(compressed, 20);
    rec.writeUInt32LE(size, 24);
    rec.writeUInt16LE(name.length, 28);
    rec.writeUInt16LE(extra, 30);
    // comment length, disk start, internal and external attributes: zero
    rec.writeUInt32LE(zip64 ? U32_MAX : offset, 42);
    name.copy(rec, 46);
    if (zip64) {
      rec.writeUInt16LE(0x0001, 46 + name.length);
      rec.writeUInt16LE(8, 48 + name.length);
      rec.writeBigUInt64LE(BigInt(offset), 50 + name.length);
    }
    this.chunkUsed += length;
    this.centralBytes += length;
  }

  /** Writes any queued entries, the central directory and the end records. */
  finish(): void {
    this.flush();
    const cdOffset = this.offset;
    const cdSize = this.centralBytes;
    this.central.push(this.chunk.subarray(0, this.chunkUsed));
    for (const part of this.central) this.sink.write(part);
    this.central = [];
    const needZip64 = this.entries > U16_MAX || cdOffset >= U32_MAX || cdSize >= U32_MAX;
    if (needZip64) {
      const end64 = Buffer.alloc(56 + 20);
      end64.writeUInt32LE(ZIP64_END, 0);
      end64.writeBigUInt64LE(44n, 4); // size of the rest of this record
      end64.writeUInt16LE(45, 12);
      end64.writeUInt16LE(45, 14);
      // this disk, disk with the central directory: zero
      end64.writeBigUInt64LE(BigInt(this.entries), 24);
      end64.writeBigUInt64LE(BigInt(this.entries), 32);
      end64.writeBigUInt64LE(BigInt(cdSize), 40);
      end64.writeBigUInt64LE(BigInt(cdOffset), 48);
      end64.writeUInt32LE(ZIP64_LOCATOR, 56);
      end64.writeBigUInt64LE(BigInt(cdOffset + cdSize), 64);
      end64.writeUInt32LE(1, 72); // total disks
      this.sink.write(end64);
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(END_OF_CENTRAL, 0);
    end.writeUInt16LE(Math.min(this.entries, U16_MAX), 8);
    end.writeUInt16LE(Math.min(this.entries, U16_MAX), 10);
    end.writeUInt32LE(Math.min(cdSize, U32_MAX), 12);
    end.writeUInt32LE(Math.min(cdOffset, U32_MAX), 16);
    this.sink.write(end);
  }

  get count(): number {
    return this.entries;
  }
}
