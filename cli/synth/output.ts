/**
 * Streaming file output for the corpus: zip archives written entry by entry, gzip and plain
 * text written line by line, with backpressure so memory stays flat at any scale.
 *
 * Zip entries are deflated in batches on worker threads (deflate-pool.ts explains why not
 * fflate's `ZipDeflate`: measured here it managed 8–15 MB/s on 3–5 KB JSON documents, native
 * zlib ~5× that) and framed by zip-writer.ts (ZIP64-capable). Entries stay in order.
 * Level 1 by default: half the CPU of level 6 on these documents for ~15 % larger archives;
 * readers do not care which level wrote an entry.
 */
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { constants, createGzip } from 'node:zlib';
import type { DeflatedEntry, DeflatePool } from './deflate-pool.ts';
import { CORPUS_NOW } from './scale.ts';
import { StreamingZip } from './zip-writer.ts';

async function openOutput(path: string): Promise<WriteStream> {
  await mkdir(dirname(path), { recursive: true });
  return createWriteStream(path);
}

async function drained(out: WriteStream): Promise<void> {
  if (out.writableNeedDrain) await once(out, 'drain');
}

async function finished(out: WriteStream): Promise<void> {
  if (out.writableFinished) return;
  await once(out, 'finish');
}

interface PendingBatch {
  names: string[];
  data: Promise<DeflatedEntry[]>;
}

export interface OutputStats {
  entries: number;
  /** Uncompressed bytes of content written. */
  bytes: number;
}

const BATCH_SIZE = 200;
const BATCHES_IN_FLIGHT = 4;

/** A zip archive written as entries arrive; memory holds at most a few batches. */
export class ZipStreamWriter {
  private readonly zip: StreamingZip;
  private readonly inFlight: PendingBatch[] = [];
  private names: string[] = [];
  private docs: string[] = [];
  private readonly stats: OutputStats = { entries: 0, bytes: 0 };

  private constructor(
    private readonly out: WriteStream,
    private readonly pool: DeflatePool,
    private readonly level: number,
  ) {
    // Every entry gets the corpus date: no clock, so archives are byte-identical across runs.
    this.zip = new StreamingZip(out, CORPUS_NOW);
  }

  static async open(path: string, pool: DeflatePool, level = 1): Promise<ZipStreamWriter> {
    return new ZipStreamWriter(await openOutput(path), pool, level);
  }

  async add(name: string, content: string): Promise<void> {
    this.names.push(name);
    this.docs.push(content);
    if (this.docs.length >= BATCH_SIZE) await this.submit();
  }

  private async submit(): Promise<void> {
    if (this.docs.length === 0) return;
    this.inFlight.push({ names: this.names, data: this.pool.deflate(this.docs, this.level) });
    this.names = [];
    this.docs = [];
    if (this.inFlight.length >= BATCHES_IN_FLIGHT) await this.writeOldest();
  }

  private async writeOldest(): Promise<void> {
    const batch = this.inFlight.shift();
    if (!batch) return;
    const entries = await batch.data;
    entries.forEach((e, k) => {
      this.zip.add(batch.names[k]!, e.size, e.crc, e.data);
      this.stats.entries++;
      this.stats.bytes += e.size;
    });
    this.zip.flush();
    await drained(this.out);
  }

  async close(): Promise<OutputStats> {
    await this.submit();
    while (this.inFlight.length > 0) await this.writeOldest();
    this.zip.finish();
    this.out.end();
    await finished(this.out);
    return this.stats;
  }
}

/** A text file written in pieces (optionally gzip-compressed), respecting backpressure. */
export class TextStreamWriter {
  private readonly stats: OutputStats = { entries: 0, bytes: 0 };

  private constructor(
    private readonly out: WriteStream,
    private readonly sink: NodeJS.WritableStream,
  ) {}

  static async open(path: string, gzip = false): Promise<TextStreamWriter> {
    const out = await openOutput(path);
    if (!gzip) return new TextStreamWriter(out, out);
    // Node's gzip header carries no timestamp (MTIME 0): the bytes depend on content only.
    const gz = createGzip({ level: constants.Z_DEFAULT_COMPRESSION });
    gz.pipe(out);
    return new TextStreamWriter(out, gz);
  }

  async write(text: string): Promise<void> {
    this.stats.bytes += Buffer.byteLength(text);
    this.stats.entries++;
    if (!this.sink.write(text)) await once(this.sink, 'drain');
  }

  async close(): Promise<OutputStats> {
    this.sink.end();
    await finished(this.out);
    return this.stats;
  }
}

/** Writes one whole file (small outputs: KEV, Metasploit, CWE, MSRC months, NVD pages). */
export async function writeWhole(path: string, content: string): Promise<OutputStats> {
  const out = await openOutput(path);
  out.end(content);
  await finished(out);
  return { entries: 1, bytes: Buffer.byteLength(content) };
}
