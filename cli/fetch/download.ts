/**
 * Downloads one URL to a temporary file next to its destination, streaming (never holding the
 * body in memory), with conditional-request validators, resumption of a broken transfer
 * (`Range`, within the run and in the next one: partial.ts) and a progress bar in bytes. The
 * caller verifies the temporary file and moves it into place; `fetchFile` does all of that for
 * the common one-file source.
 */
import { existsSync } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import { buffer } from 'node:stream/consumers';
import { finished } from 'node:stream/promises';
import { basename, dirname, relative } from 'node:path';
import { namingPath } from '../../lib/errors.ts';
import { progress } from '../../lib/log.ts';
import { moveIntoPlace } from './atomic.ts';
import { decodeUnaskedCoding } from './content-coding.ts';
import { FetchError, describeError, isAbortError } from './errors.ts';
import { HttpStatusError, TruncatedBodyError, headerValue, type GetOptions, type HttpClient, type HttpResponse } from './http.ts';
import { dropPartial, dropStalePartials, loadPartial, partialFilesFor, savePartialMeta } from './partial.ts';
import { conditionalHeaders, validatorsOf, type ValidatorStore, type Validators } from './validators.ts';
import { refuseOlder, refuseShrink, type Verified } from './verify.ts';

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

/**
 * Whether a 206 comes from the version of the file the kept bytes belong to: the validator sent
 * as If-Range names that version, and a 206 carries the ETag and Last-Modified a 200 would (RFC
 * 9110 §15.3.7). A server that honours Range but ignores If-Range (RFC 9110 does not require it
 * to evaluate one) answers a changed file with a 206 of the new version: appended to the old
 * bytes, it made a file of two versions, and a zip of two versions still reads as one (its
 * central directory, at the end, is whole). A 206 that says nothing of its version is taken.
 */
function sameVersion(res: HttpResponse, validator: string): boolean {
  const header = validatorHeader(validator);
  const served = headerValue(res.headers, header);
  if (served === undefined) return true;
  return header === 'etag' ? served === validator : Date.parse(served) === Date.parse(validator);
}

/** Which header a resume validator (resumeValidator) was taken from: an HTTP date is a Last-Modified. */
function validatorHeader(validator: string): 'etag' | 'last-modified' {
  return /GMT$/.test(validator) && !Number.isNaN(Date.parse(validator)) ? 'last-modified' : 'etag';
}

/** A 206 of another version of the file than the bytes kept (sameVersion): start over, whole. */
class VersionChangedError extends FetchError {
  constructor(url: string, kept: string, served: string) {
    super(`GET ${url}: a partial answer of another version of the file (${served}, the bytes kept are of ${kept})`);
    this.name = 'VersionChangedError';
  }
}

/** `Content-Range: bytes <first>-<last>/<total>` of a 206, or null when it does not parse. */
function contentRange(res: HttpResponse): { start: number; total: number | null } | null {
  const m = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(headerValue(res.headers, 'content-range') ?? '');
  return m ? { start: Number(m[1]), total: m[2] === '*' ? null : Number(m[2]) } : null;
}

/**
 * How much an attempt must add to the file for its failure not to count against the retries:
 * 1/64 of the file, at most 1 MiB. A download that grows at each attempt goes on (a flaky link
 * cutting a 500 MB file every few tens of MB), yet a host that sends a few bytes and cuts cannot
 * keep it going for ever: at most 64 such attempts for a file up to 64 MiB, one per MiB beyond.
 */
function progressStep(total: number): number {
  return Number.isFinite(total) && total > 0 ? Math.min(1024 * 1024, Math.ceil(total / 64)) : 1024 * 1024;
}

/**
 * Streams `url` into a temporary file beside `dest`. A connection lost mid-body is retried by
 * the client's retry loop; where the server allows it (Accept-Ranges: bytes and a strong ETag
 * or a Last-Modified), the retry asks only for the missing bytes (`Range`, guarded by
 * `If-Range`: a file that changed meanwhile comes whole), and an attempt that added to the file
 * does not count against the retries (progressStep). When the download fails all the same, the
 * bytes received are kept for the next run, which resumes them the same way (partial.ts);
 * otherwise the temporary file is removed.
 */
export async function downloadToTemp(http: HttpClient, url: string, dest: string, opts: TempDownloadOptions): Promise<TempDownload> {
  await mkdir(dirname(dest), { recursive: true });
  await dropStalePartials(dest);
  const partial = partialFilesFor(dest);
  const kept = await loadPartial(partial, url);
  const tmp = partial.data;
  /** Bytes safely on disk in `tmp`. */
  let have = kept?.bytes ?? 0;
  let resumeWith: string | null = kept?.validator ?? null;
  /** `have` when the current attempt was sent. */
  let attemptStart = have;
  /** The answer that carries the file's validators: the 200, or the first 206 of a resumed run. */
  let first: HttpResponse | null = null;
  let total = NaN;
  /** Our own check refused an answer: its bytes are not worth keeping. */
  let refused = false;
  const bar = progress(opts.label, 0, 'bytes');
  bar.tick(have);
  /** The last attempt asked for a range. */
  let ranged = false;
  /** Times a 416 made the download start over. */
  let restarts = 0;
  try {
    const attempt = () =>
      http.exchange(
        url,
        {
          ...opts,
          headersFor: () => {
            attemptStart = have;
            ranged = have > 0 && resumeWith !== null;
            return {
              ...conditionalHeaders(opts.validators),
              ...opts.headers,
              ...(ranged ? { range: `bytes=${have}-`, 'if-range': resumeWith! } : {}),
            };
          },
          // Bytes a retry will not ask for again; a server that cannot resume makes no progress.
          progressed: () => resumeWith !== null && have - attemptStart >= progressStep(total),
        },
        async (res) => {
          if (res.status === 304) {
            await buffer(res.body);
            return 'not-modified' as const;
          }
          const range = res.status === 206 ? contentRange(res) : null;
          const resumed = res.status === 206 && have > 0 && range?.start === have;
          if (res.status === 206 && !resumed) {
            refused = true;
            throw new FetchError(`GET ${res.url}: unexpected partial answer (${headerValue(res.headers, 'content-range') ?? 'no Content-Range'})`);
          }
          if (resumed && resumeWith !== null && !sameVersion(res, resumeWith)) {
            const served = headerValue(res.headers, validatorHeader(resumeWith)) ?? '';
            throw new VersionChangedError(res.url, resumeWith, served);
          }
          if (resumed) {
            // Bytes kept by an earlier run: this answer is the first to say what the file is.
            first ??= res;
            if (!Number.isFinite(total)) total = range?.total ?? have + Number(headerValue(res.headers, 'content-length') ?? NaN);
          } else {
            // A first answer, or a server that sent the whole file again: start over.
            first = res;
            have = 0;
            resumeWith = resumeValidator(res);
            total = Number(headerValue(res.headers, 'content-length') ?? NaN);
          }
          bar.setTotal(Number.isFinite(total) ? total : 0);
          // Every chunk is taken as soon as it arrives, the listener on before anything is
          // awaited: a stream that breaks drops what it still holds, and a short body cut 50 ms
          // after its headers was lost whole while the file was being opened. Chunks are written
          // in order; `have` counts what reached the file, so the next Range starts at the right
          // byte whatever broke the connection.
          const body = res.body;
          const opened = open(tmp, resumed ? 'a' : 'w');
          // A failed open or write (the disk full, a read-only folder) is kept here and stops the
          // body at once. Left in the chain of writes, it was a rejection nothing handled until
          // the body ended: Node ended the process on it, printing a stack, with no status written
          // and the other sources not fetched (seen with 300 KB free on a tmpfs).
          let writeFailure: unknown = null;
          const failWrite = (err: unknown) => {
            writeFailure ??= namingPath(err, tmp);
            body.destroy();
          };
          let writes: Promise<unknown> = opened.then(() => undefined, failWrite);
          {
            let queued = 0;
            body.on('data', (chunk: Buffer) => {
              queued += chunk.length;
              if (queued > WRITE_QUEUE_BYTES) body.pause();
              writes = writes
                .then(async () => {
                  if (writeFailure) return;
                  await (await opened).write(chunk);
                  have += chunk.length;
                  queued -= chunk.length;
                  bar.tick(chunk.length);
                  if (body.isPaused() && queued <= WRITE_QUEUE_BYTES) body.resume();
                })
                .catch(failWrite);
            });
          }
          try {
            // What lets the next run resume these bytes if this run breaks (partial.ts).
            if (!resumed) {
              if (resumeWith) await savePartialMeta(partial, url, resumeWith);
              else await dropPartial(partial, true);
            }
            await finished(body);
            await writes;
          } catch (err) {
            // What arrived before the break still reaches the file.
            body.destroy();
            await writes;
            throw writeFailure ?? err;
          } finally {
            await (await opened.catch(() => null))?.close();
          }
          if (writeFailure) throw writeFailure;
          if (Number.isFinite(total) && have !== total) throw new TruncatedBodyError(have, total);
          return 'done' as const;
        },
      );
    let outcome: 'done' | 'not-modified';
    for (;;) {
      try {
        outcome = await attempt();
        break;
      } catch (err) {
        // 416: the bytes we have are no prefix of what the server holds now (the file shrank,
        // or a server that ignores If-Range). RFC 9110 §15.5.17: drop them and ask for the
        // whole file, without Range; once, so a server that keeps answering 416 fails clearly.
        // A 206 of another version (sameVersion) is the same case.
        if (!((err instanceof HttpStatusError && err.status === 416 && ranged) || err instanceof VersionChangedError)) throw err;
        if (restarts++ > 0) {
          refused = true;
          throw err;
        }
        have = 0;
        resumeWith = null;
        await dropPartial(partial);
        bar.setTotal(0);
      }
    }
    if (outcome === 'not-modified') {
      await dropPartial(partial);
      return { kind: 'not-modified' };
    }
    try {
      await decodeUnaskedCoding(tmp, dest, headerValue((first as HttpResponse | null)?.headers ?? {}, 'content-encoding'), http.rewrite(url));
    } catch (err) {
      refused = true;
      throw err;
    }
  } catch (err) {
    // Bytes that came from answers sharing one validator, at consecutive offsets: worth keeping
    // (If-Range decides next run whether they still belong to the file). An interruption
    // (SIGTERM) keeps them too.
    const keep = !refused && have > 0 && resumeWith !== null;
    if (!keep) await dropPartial(partial);
    if (isAbortError(err)) throw err;
    const kept = keep ? `; the ${have} bytes received are kept to resume next run` : '';
    if (err instanceof FetchError) {
      // Said on the error itself, so its kind (HttpStatusError) stays for the caller.
      err.message += kept;
      throw err;
    }
    throw new FetchError(`GET ${http.rewrite(url)}: download interrupted after ${have} bytes (${describeError(err)})${kept}`);
  } finally {
    bar.stop();
  }
  await dropPartial(partial, true);
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
 * Download → verify → rename, for one file. A 304 leaves everything as is; any failure leaves
 * the last good file byte for byte (a broken download keeps its bytes beside it for the next
 * run; a file that fails its check is removed). A new file with fewer than half the records of
 * the one in place fails its check (refuseShrink), and so does one dated before it (refuseOlder).
 */
export async function fetchFile(http: HttpClient, opts: FetchFileOptions): Promise<FileOutcome> {
  const key = relative(opts.sourceDir, opts.dest);
  const validators = opts.conditional !== false && opts.store && existsSync(opts.dest) ? opts.store.get(key, opts.url) : undefined;
  const got = await downloadToTemp(http, opts.url, opts.dest, { ...opts, validators, label: key });
  if (got.kind === 'not-modified') return { changed: false, bytes: 0, records: null, watermark: null };
  try {
    const what = `${basename(opts.sourceDir)} ${key} from ${opts.url}`;
    const verified = await opts.verify(got.tmp, what);
    // The file in place, counted by the same check (one that no longer passes counts for nothing).
    const before = existsSync(opts.dest) ? await opts.verify(opts.dest, key).catch(() => null) : null;
    if (before) {
      refuseShrink(before.records, verified.records, what);
      refuseOlder(before.watermark, verified.watermark, what);
    }
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
