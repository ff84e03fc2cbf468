/**
 * `Content-Encoding`, undone: for a body read whole (decodeBody: what getBytes asked for
 * compressed) and for a streamed download that was sent encoded though it asked for no coding
 * (decodeUnaskedCoding).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { brotliDecompressSync, createBrotliDecompress, createGunzip, createInflate, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import { tempPathFor } from './atomic.ts';
import { FetchError, describeError } from './errors.ts';

/**
 * `deflate` is the zlib format (RFC 9110 §8.4.1.2), yet "some non-conformant implementations
 * send the deflate compressed data without the zlib wrapper" (the RFC's own note; IIS did):
 * a body read whole that is no zlib stream is inflated raw, as browsers and curl do. It was
 * "deflate body does not decompress", retried and failed every time.
 */
function inflateEither(body: Buffer): Buffer {
  try {
    return inflateSync(body);
  } catch (err) {
    try {
      return inflateRawSync(body);
    } catch {
      throw err;
    }
  }
}

const DECODERS: Record<string, { whole: (body: Buffer) => Buffer; stream: () => Transform }> = {
  gzip: { whole: (b) => gunzipSync(b), stream: createGunzip },
  'x-gzip': { whole: (b) => gunzipSync(b), stream: createGunzip },
  deflate: { whole: inflateEither, stream: createInflate },
  br: { whole: (b) => brotliDecompressSync(b), stream: createBrotliDecompress },
};

/** The codings applied, in the order `Content-Encoding` lists them ("identity" dropped). */
function codingsOf(contentEncoding: string | undefined): string[] {
  return (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity');
}

/**
 * A compressed body that does not decompress: a body cut short without a declared length (a
 * chunked answer whose connection closed) ends this way, so it is retried like a truncation.
 */
class UndecodableBodyError extends Error {
  readonly code = 'BODY_UNDECODABLE';
  constructor(coding: string, cause: unknown) {
    super(`${coding} body does not decompress (${describeError(cause)})`, { cause });
    this.name = 'UndecodableBodyError';
  }
}

/** A body from `url` as sent with `Content-Encoding` (codings in the order applied), decoded. */
export function decodeBody(body: Buffer, contentEncoding: string | undefined, url: string): Buffer {
  let out = body;
  for (const coding of codingsOf(contentEncoding).reverse()) {
    const decode = DECODERS[coding];
    if (!decode) throw new FetchError(`GET ${url}: unsupported Content-Encoding "${coding}"`);
    try {
      out = decode.whole(out);
    } catch (err) {
      throw new UndecodableBodyError(coding, err);
    }
  }
  return out;
}

/** What a file name says the file itself is compressed with. */
const OWN_CODING: Array<[RegExp, string[]]> = [
  [/\.(gz|tgz)$/i, ['gzip', 'x-gzip']],
  [/\.br$/i, ['br']],
];

/** How every gzip stream starts (RFC 1952 §2.3.1: ID1, ID2). */
export const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);

/**
 * Whether `file`, its transport `coding` undone, still starts with gzip's magic bytes: a `.gz`
 * that a server or proxy compressed again on the fly (gzip inside gzip), not one merely labelled
 * with its own coding. Only the first decoded chunk is read.
 */
async function gzipUnderCoding(file: string, coding: string): Promise<boolean> {
  const decoder = DECODERS[coding]?.stream();
  if (!decoder) return false;
  const source = createReadStream(file);
  source.on('error', (err) => decoder.destroy(err));
  source.pipe(decoder);
  try {
    const head = await new Promise<Buffer>((resolve, reject) => {
      decoder.once('data', (chunk: Buffer) => resolve(chunk));
      decoder.once('end', () => resolve(Buffer.alloc(0)));
      decoder.once('error', reject);
    });
    return head.subarray(0, GZIP_MAGIC.length).equals(GZIP_MAGIC);
  } catch {
    // Not even one layer decodes: certainly not gzip inside gzip (the file's own check says what it is).
    return false;
  } finally {
    source.destroy();
    decoder.destroy();
  }
}

/**
 * Decodes `tmp` in place when it was sent with a Content-Encoding (`dest` names the file it
 * becomes); FetchError naming the URL and the coding when it cannot be decoded.
 *
 * Streamed downloads ask for no coding (their byte ranges must be those of the file), yet a
 * server or CDN may gzip the answer all the same: stored as received, the KEV catalog was a gzip
 * stream refused as "malformed JSON", with nothing saying why. The file is kept encoded while it
 * downloads (a resumed Range counts bytes of the encoded body) and decoded once complete. A file
 * that is itself of that format stays as it came: a `.gz` sent with `Content-Encoding: gzip` is
 * a common server misconfiguration (Apache's `AddEncoding x-gzip .gz`), and decoding it would
 * store a CSV under `epss_scores-current.csv.gz`; unless what the coding wraps is itself gzip
 * (gzipUnderCoding): then the file was compressed again on its way and the outer layer goes.
 */
export async function decodeUnaskedCoding(tmp: string, dest: string, contentEncoding: string | undefined, url: string): Promise<void> {
  const codings = codingsOf(contentEncoding);
  if (codings.length === 0) return;
  const own = OWN_CODING.find(([name]) => name.test(dest))?.[1];
  if (codings.length === 1 && own?.includes(codings[0]!) && !(await gzipUnderCoding(tmp, codings[0]!))) return;
  const unknown = codings.find((c) => !DECODERS[c]);
  if (unknown) throw new FetchError(`GET ${url}: unsupported Content-Encoding "${unknown}" (not asked for)`);
  const decoded = tempPathFor(dest);
  try {
    // Codings are listed in the order they were applied: undone last to first.
    await pipeline([createReadStream(tmp), ...codings.reverse().map((c) => DECODERS[c]!.stream()), createWriteStream(decoded)]);
    await rename(decoded, tmp);
  } catch (err) {
    await rm(decoded, { force: true });
    throw new FetchError(`GET ${url}: the body, sent with Content-Encoding ${codings.join(', ')} though none was asked for, does not decode (${(err as Error).message})`);
  }
}
