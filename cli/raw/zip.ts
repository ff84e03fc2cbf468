/**
 * A small, fast zip reader for raw archives (cvelistV5 baselines hold 300,000+ members, the
 * OSV `all.zip` tens of thousands). It reads the central directory (Zip64 included: past
 * 65,535 members the classic counters overflow), then the members in file order through large
 * positioned reads, inflating each with zlib. Generic libraries cost ~1 ms per member here;
 * this costs a few microseconds plus the inflate.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { crc32, inflateRawSync } from 'node:zlib';

export interface ZipMember {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  /** CRC-32 of the uncompressed bytes, as the central directory gives it. */
  crc: number;
  /** Offset of the member's local header. */
  offset: number;
}

/** Random access to the archive's bytes: a file or a buffer (a zip inside a zip). */
export interface ByteSource {
  size: number;
  read(position: number, length: number): Promise<Buffer>;
  close(): Promise<void>;
}

export async function fileSource(path: string): Promise<ByteSource> {
  const fh: FileHandle = await open(path, 'r');
  const { size } = await fh.stat();
  return {
    size,
    async read(position, length) {
      const buf = Buffer.allocUnsafe(length);
      let done = 0;
      while (done < length) {
        const { bytesRead } = await fh.read(buf, done, length - done, position + done);
        if (bytesRead === 0) throw new Error(`unexpected end of file at byte ${position + done}`);
        done += bytesRead;
      }
      return buf;
    },
    close: () => fh.close(),
  };
}

export function bufferSource(buf: Buffer): ByteSource {
  return {
    size: buf.length,
    async read(position, length) {
      if (position + length > buf.length) throw new Error(`unexpected end of archive at byte ${buf.length}`);
      return buf.subarray(position, position + length);
    },
    close: async () => {},
  };
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** Lists the members from the central directory. */
export async function readCentralDirectory(src: ByteSource): Promise<ZipMember[]> {
  const tailLength = Math.min(src.size, 65_557);
  const tail = await src.read(src.size - tailLength, tailLength);
  let eocd = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('no end of central directory record (truncated or not a zip)');
  let count = tail.readUInt16LE(eocd + 10);
  let cdSize = tail.readUInt32LE(eocd + 12);
  let cdOffset = tail.readUInt32LE(eocd + 16);
  if (eocd >= 20 && tail.readUInt32LE(eocd - 20) === ZIP64_LOCATOR) {
    const z64Offset = Number(tail.readBigUInt64LE(eocd - 20 + 8));
    const z64 = await src.read(z64Offset, 56);
    if (z64.readUInt32LE(0) !== ZIP64_EOCD) throw new Error('broken Zip64 end of central directory');
    count = Number(z64.readBigUInt64LE(32));
    cdSize = Number(z64.readBigUInt64LE(40));
    cdOffset = Number(z64.readBigUInt64LE(48));
  }
  if (cdOffset + cdSize > src.size) throw new Error('central directory lies past the end of the file (truncated)');
  const cd = await src.read(cdOffset, cdSize);
  const members: ZipMember[] = [];
  let p = 0;
  // The directory is walked by its byte size, not by the member count: writers without Zip64
  // (fflate among them) let the 16-bit count wrap past 65,535 members.
  for (let n = 0; p < cd.length; n++) {
    if (p + 46 > cd.length || cd.readUInt32LE(p) !== CENTRAL) throw new Error(`broken central directory entry ${n}`);
    const method = cd.readUInt16LE(p + 10);
    const crc = cd.readUInt32LE(p + 16);
    let compressedSize = cd.readUInt32LE(p + 20);
    let size = cd.readUInt32LE(p + 24);
    const nameLength = cd.readUInt16LE(p + 28);
    const extraLength = cd.readUInt16LE(p + 30);
    const commentLength = cd.readUInt16LE(p + 32);
    let offset = cd.readUInt32LE(p + 42);
    const name = cd.toString('utf8', p + 46, p + 46 + nameLength);
    if (size === 0xffffffff || compressedSize === 0xffffffff || offset === 0xffffffff) {
      // Zip64 extended information: only the overflowing fields are present, in this order.
      let e = p + 46 + nameLength;
      const end = e + extraLength;
      while (e + 4 <= end) {
        const id = cd.readUInt16LE(e);
        const len = cd.readUInt16LE(e + 2);
        if (id === 0x0001) {
          let q = e + 4;
          if (size === 0xffffffff) (size = Number(cd.readBigUInt64LE(q)), (q += 8));
          if (compressedSize === 0xffffffff) (compressedSize = Number(cd.readBigUInt64LE(q)), (q += 8));
          if (offset === 0xffffffff) offset = Number(cd.readBigUInt64LE(q));
          break;
        }
        e += 4 + len;
      }
    }
    members.push({ name, method, compressedSize, size, crc, offset });
    p += 46 + nameLength + extraLength + commentLength;
  }
  if (members.length % 65_536 !== count % 65_536) throw new Error(`central directory lists ${members.length} members, the archive says ${count}`);
  return members;
}

const WINDOW = 16 << 20;

/**
 * Yields the wanted members' uncompressed bytes in file order. `wanted` filters by name
 * before anything is read or inflated.
 */
export async function* readZipMembers(
  src: ByteSource,
  wanted: (name: string) => boolean,
): AsyncGenerator<{ member: ZipMember; data: Buffer }> {
  const members = (await readCentralDirectory(src)).filter((m) => !m.name.endsWith('/') && wanted(m.name));
  members.sort((a, b) => a.offset - b.offset);
  let window: Buffer = Buffer.alloc(0);
  let windowStart = 0;
  const bytesAt = async (position: number, length: number): Promise<Buffer> => {
    if (position < windowStart || position + length > windowStart + window.length) {
      const size = Math.min(Math.max(WINDOW, length), src.size - position);
      if (size < length) throw new Error(`member data runs past the end of the archive (truncated)`);
      window = await src.read(position, size);
      windowStart = position;
    }
    return window.subarray(position - windowStart, position - windowStart + length);
  };
  for (const member of members) {
    const header = await bytesAt(member.offset, 30);
    if (header.readUInt32LE(0) !== LOCAL) throw new Error(`${member.name}: broken local header`);
    const dataStart = member.offset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
    const raw = await bytesAt(dataStart, member.compressedSize);
    let data: Buffer;
    if (member.method === 0) data = Buffer.from(raw);
    else if (member.method === 8) {
      try {
        // One output buffer of the member's size (as the directory says, capped: a hostile
        // archive's claim allocates nothing large): zlib's default 16 KiB chunks, concatenated,
        // cost ~12 % of the inflate over a CVE List baseline's 340,000 small members. Inflating
        // stops one byte past the declared size: a member that claims 100 bytes and inflates to
        // gigabytes (a zip bomb) is refused at once, not after filling the heap.
        data = inflateRawSync(raw, { chunkSize: Math.min(Math.max(64, member.size), 16 << 20), maxOutputLength: member.size + 1 });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new Error(`${member.name}: inflates past its declared ${member.size} bytes`);
        throw new Error(`${member.name}: cannot be inflated (${(err as Error).message})`);
      }
    } else throw new Error(`${member.name}: unsupported compression method ${member.method}`);
    if (data.length !== member.size) throw new Error(`${member.name}: ${data.length} bytes inflated, ${member.size} expected`);
    // A damaged member inflates to the declared size all the same (a stored one always does):
    // only its checksum tells (zlib's crc32 runs at memory speed).
    if (crc32(data) !== member.crc) throw new Error(`${member.name}: CRC-32 mismatch (damaged archive)`);
    yield { member, data };
  }
}
