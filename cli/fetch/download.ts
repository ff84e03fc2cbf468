/**
 * Downloads one URL to a temporary file next to its destination, streaming (never holding the
 * body in memory), with conditional-request validators and a progress bar in bytes. The caller
 * verifies the temporary file and moves it into place; `fetchFile` does all of that for the
 * common one-file source.
 */
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { progress } from '../../lib/log.ts';
import { moveIntoPlace, tempPathFor } from './atomic.ts';
import { FetchError, describeError, isAbortError } from './errors.ts';
import { headerValue, type GetOptions, type HttpClient } from './http.ts';
import { conditionalHeaders, validatorsOf, type ValidatorStore, type Validators } from './validators.ts';
import type { Verified } from './verify.ts';

export type TempDownload =
  | { kind: 'not-modified' }
  | { kind: 'downloaded'; tmp: string; bytes: number; validators: Validators; lastModified: string | undefined };

export interface TempDownloadOptions extends GetOptions {
  /** Validators of the file in place; sent as If-None-Match / If-Modified-Since. */
  validators?: Validators | undefined;
  /** Progress bar label. */
  label: string;
}

/** Streams `url` into a temporary file beside `dest`. The temporary file is removed on failure. */
export async function downloadToTemp(http: HttpClient, url: string, dest: string, opts: TempDownloadOptions): Promise<TempDownload> {
  const res = await http.get(url, { ...opts, headers: { ...conditionalHeaders(opts.validators), ...opts.headers } });
  if (res.status === 304) {
    await res.body.dump();
    return { kind: 'not-modified' };
  }
  const declared = Number(headerValue(res.headers, 'content-length') ?? NaN);
  const bar = progress(opts.label, Number.isFinite(declared) ? declared : 0, 'bytes');
  await mkdir(dirname(dest), { recursive: true });
  const tmp = tempPathFor(dest);
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      bar.tick(chunk.length);
      done(null, chunk);
    },
  });
  try {
    await pipeline(res.body, counter, createWriteStream(tmp));
    if (Number.isFinite(declared) && bytes !== declared) {
      throw new FetchError(`GET ${res.url}: body ended after ${bytes} of ${declared} bytes`);
    }
  } catch (err) {
    await rm(tmp, { force: true });
    if (isAbortError(err) || err instanceof FetchError) throw err;
    throw new FetchError(`GET ${res.url}: download interrupted after ${bytes} bytes (${describeError(err)})`);
  } finally {
    bar.stop();
  }
  return { kind: 'downloaded', tmp, bytes, validators: validatorsOf(res), lastModified: headerValue(res.headers, 'last-modified') };
}

export interface FileOutcome {
  changed: boolean;
  bytes: number;
  /** Records in the new file; null when unchanged (304). */
  records: number | null;
  watermark: string | null;
}

export interface FetchFileOptions extends GetOptions {
  url: string;
  dest: string;
  /** Checks the temporary file; throws FetchError when it must not replace the current one. */
  verify: (tmp: string, what: string) => Promise<Verified>;
  /** Conditional-request memory of the source (omit to always download). */
  store?: ValidatorStore;
  /** The source folder, for naming the validator entry and the progress bar. */
  sourceDir: string;
  /** false: ignore the stored validators and download in full (`--full`); new ones are still stored. */
  conditional?: boolean;
}

/**
 * Download → verify → rename, for one file. A 304 leaves everything as is; any failure removes
 * the temporary file and leaves the last good file byte for byte.
 */
export async function fetchFile(http: HttpClient, opts: FetchFileOptions): Promise<FileOutcome> {
  const key = relative(opts.sourceDir, opts.dest);
  const validators = opts.conditional !== false && opts.store && existsSync(opts.dest) ? opts.store.get(key, opts.url) : undefined;
  const got = await downloadToTemp(http, opts.url, opts.dest, { ...opts, validators, label: key });
  if (got.kind === 'not-modified') return { changed: false, bytes: 0, records: null, watermark: null };
  try {
    const verified = await opts.verify(got.tmp, `${key} from ${opts.url}`);
    await moveIntoPlace(got.tmp, opts.dest);
    await opts.store?.set(key, opts.url, got.validators);
    // Without a date inside the file, the server's Last-Modified says how fresh it is.
    const served = got.lastModified ? new Date(got.lastModified) : null;
    const watermark = verified.watermark ?? (served && !Number.isNaN(served.getTime()) ? served.toISOString() : null);
    return { changed: true, bytes: got.bytes, records: verified.records, watermark };
  } catch (err) {
    await rm(got.tmp, { force: true });
    throw err;
  }
}
