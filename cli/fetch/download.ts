/**
 * Downloads one URL to a temporary file next to its destination, streaming (never holding the
 * body in memory), with conditional-request validators, resumption of a broken transfer
 * (`Range`) and a progress bar in bytes. The caller
 * verifies the temporary file and moves it into place; `fetchFile` does all of that for the
 * common one-file source.
 */
import { existsSync } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import { buffer } from 'node:stream/consumers';
import { finished } from 'node:stream/promises';
import { dirname, relative } from 'node:path';
import { progress } from '../../lib/log.ts';
import { moveIntoPlace, tempPathFor } from './atomic.ts';
import { FetchError, describeError, isAbortError } from './errors.ts';
import { TruncatedBodyError, headerValue, type GetOptions, type HttpClient, type HttpResponse } from './http.ts';
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

/** Bytes received but not yet written before the body is paused. */
const WRITE_QUEUE_BYTES = 8 * 1024 * 1024;

/** What lets a broken download continue: byte ranges, and a strong validator for If-Range. */
function resumeValidator(res: HttpResponse): string | null {
  if (!/\bbytes\b/i.test(headerValue(res.headers, 'accept-ranges') ?? '')) return null;
  const etag = headerValue(res.headers, 'etag');
  // If-Range needs a strong validator (RFC 9110 §13.1.5): a weak ETag cannot resume.
  if (etag && !etag.startsWith('W/')) return etag;
  return headerValue(res.headers, 'last-modified') ?? null;
}

/** `Content-Range: bytes <first>-<last>/<total>` of a 206, or null when it does not parse. */
function contentRangeStart(res: HttpResponse): number | null {
  const m = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(headerValue(res.headers, 'content-range') ?? '');
  return m ? Number(m[1]) : null;
}

/**
 * Streams `url` into a temporary file beside `dest`. A connection lost mid-body is retried by
 * the client's retry loop; where the server allows it (Accept-Ranges: bytes and a strong ETag
 * or a Last-Modified), the retry asks only for the missing bytes (`Range`, guarded by
 * `If-Range`: a file that changed meanwhile comes whole). The temporary file is removed on failure.
 */
export async function downloadToTemp(http: HttpClient, url: string, dest: string, opts: TempDownloadOptions): Promise<TempDownload> {
  await mkdir(dirname(dest), { recursive: true });
  const tmp = tempPathFor(dest);
  /** Bytes safely on disk in `tmp`. */
  let have = 0;
  let resumeWith: string | null = null;
  let first: HttpResponse | null = null;
  let total = NaN;
  const bar = progress(opts.label, 0, 'bytes');
  try {
    const outcome = await http.exchange(
      url,
      {
        ...opts,
        headersFor: () =>
          have > 0 && resumeWith
            ? { range: `bytes=${have}-`, 'if-range': resumeWith }
            : { ...conditionalHeaders(opts.validators), ...opts.headers },
      },
      async (res) => {
        if (res.status === 304) {
          await buffer(res.body);
          return 'not-modified' as const;
        }
        const resumed = res.status === 206 && have > 0 && contentRangeStart(res) === have;
        if (res.status === 206 && !resumed) throw new FetchError(`GET ${res.url}: unexpected partial answer (${headerValue(res.headers, 'content-range') ?? 'no Content-Range'})`);
        if (!resumed) {
          // A first answer, or a server that sent the whole file again: start over.
          first = res;
          have = 0;
          resumeWith = resumeValidator(res);
          total = Number(headerValue(res.headers, 'content-length') ?? NaN);
          bar.setTotal(Number.isFinite(total) ? total : 0);
        }
        // Every chunk is taken as soon as it arrives (a paused stream that errors drops what it
        // holds) and written in order; `have` counts what reached the file, so the next Range
        // starts at the right byte whatever broke the connection.
        const out = await open(tmp, resumed ? 'a' : 'w');
        try {
          const body = res.body;
          let writes = Promise.resolve();
          {
            let queued = 0;
            body.on('data', (chunk: Buffer) => {
              queued += chunk.length;
              if (queued > WRITE_QUEUE_BYTES) body.pause();
              writes = writes.then(async () => {
                await out.write(chunk);
                have += chunk.length;
                queued -= chunk.length;
                bar.tick(chunk.length);
                if (body.isPaused() && queued <= WRITE_QUEUE_BYTES) body.resume();
              });
            });
          }
          // `finished` also settles for a body that ended or broke before the listener was on.
          try {
            await finished(body);
          } catch (err) {
            await writes;
            throw err;
          }
          await writes;
        } finally {
          await out.close();
        }
        if (Number.isFinite(total) && have !== total) throw new TruncatedBodyError(have, total);
        return 'done' as const;
      },
    );
    if (outcome === 'not-modified') {
      await rm(tmp, { force: true });
      return { kind: 'not-modified' };
    }
  } catch (err) {
    await rm(tmp, { force: true });
    if (isAbortError(err) || err instanceof FetchError) throw err;
    throw new FetchError(`GET ${http.rewrite(url)}: download interrupted after ${have} bytes (${describeError(err)})`);
  } finally {
    bar.stop();
  }
  const res = first as HttpResponse | null;
  if (!res) throw new FetchError(`GET ${http.rewrite(url)}: no response`);
  return { kind: 'downloaded', tmp, bytes: have, validators: validatorsOf(res), lastModified: headerValue(res.headers, 'last-modified') };
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
