/**
 * Deflates zip entries on worker threads, in batches. Per entry, zlib's fixed cost (setting up
 * a deflate state) outweighs compressing a 3 KB JSON record, and the async zlib API still pays
 * that setup on the calling thread: so whole batches go to a worker that runs
 * `deflateRawSync` while the main thread keeps generating records.
 *
 * The worker is inline JavaScript (eval): it needs no TypeScript loader, which workers do not
 * inherit when the CLI runs through `tsx/esm/api`.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const zlib = require('node:zlib');
parentPort.on('message', ({ id, docs, level }) => {
  const out = [];
  for (const doc of docs) {
    const raw = Buffer.from(doc, 'utf8');
    const data = zlib.deflateRawSync(raw, { level });
    out.push({ size: raw.length, crc: zlib.crc32(raw), data: new Uint8Array(data) });
  }
  parentPort.postMessage({ id, out });
});
`;

export interface DeflatedEntry {
  size: number;
  crc: number;
  data: Uint8Array;
}

interface Job {
  resolve: (entries: DeflatedEntry[]) => void;
  reject: (err: Error) => void;
}

export class DeflatePool {
  private readonly workers: Worker[] = [];
  private readonly jobs = new Map<number, Job>();
  private nextId = 0;
  private nextWorker = 0;

  /** One worker per core beyond the generating thread (at least one). */
  constructor(size = Math.max(1, availableParallelism() - 1)) {
    for (let k = 0; k < size; k++) {
      const worker = new Worker(WORKER_SOURCE, { eval: true });
      worker.on('message', ({ id, out }: { id: number; out: DeflatedEntry[] }) => {
        const job = this.jobs.get(id);
        this.jobs.delete(id);
        job?.resolve(out);
      });
      worker.on('error', (err) => {
        for (const job of this.jobs.values()) job.reject(err);
        this.jobs.clear();
      });
      this.workers.push(worker);
    }
  }

  /** Compresses a batch of UTF-8 documents; results come back in the same order. */
  deflate(docs: string[], level: number): Promise<DeflatedEntry[]> {
    const id = this.nextId++;
    const worker = this.workers[this.nextWorker++ % this.workers.length]!;
    return new Promise((resolve, reject) => {
      this.jobs.set(id, { resolve, reject });
      worker.postMessage({ id, docs, level });
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
