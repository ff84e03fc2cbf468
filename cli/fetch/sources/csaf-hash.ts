/**
 * The hash files a CSAF provider publishes beside each document (CSAF 2.0 §7.1.18:
 * `<document>.sha512` / `.sha256`, in `sha512sum` format: the hex digest, then the file name).
 * A document that does not match its published hash (a mirror serving an altered copy, a
 * document rewritten without its hash) is refused, as the BSI csaf_downloader does by default,
 * so the copy already stored stays. Only a hash file that is absent (404, 403, 410) lets a
 * document through unchecked: providers without the trusted-provider role need not publish any.
 */
import { createHash } from 'node:crypto';
import { FetchError } from '../errors.ts';
import { HttpStatusError, type HttpClient } from '../http.ts';

const ALGORITHMS: Record<string, { name: string; hexLength: number }> = {
  sha512: { name: 'SHA-512', hexLength: 128 },
  sha256: { name: 'SHA-256', hexLength: 64 },
};

/** The algorithm a hash file's name says (`….sha512`), or null for one we cannot check. */
function algorithmOf(url: string): string | null {
  const ext = /\.(sha256|sha512)$/i.exec(new URL(url).pathname)?.[1]?.toLowerCase();
  return ext ?? null;
}

/** Hash file URLs in the order to try: SHA-512 first, unknown algorithms dropped. */
export function preferredHashUrls(urls: readonly string[]): string[] {
  const usable = urls.filter((u) => algorithmOf(u) !== null);
  return [...usable.filter((u) => algorithmOf(u) === 'sha512'), ...usable.filter((u) => algorithmOf(u) === 'sha256')];
}

/**
 * Checks `doc` (the bytes as served from `docUrl`) against the first of `hashUrls` the provider
 * publishes. 'unpublished' when none is there; throws FetchError naming the document for a
 * mismatch or a hash file that holds no hash of its algorithm.
 */
export async function checkPublishedHash(
  http: HttpClient,
  doc: Buffer,
  docUrl: string,
  hashUrls: readonly string[],
  signal?: AbortSignal,
): Promise<'checked' | 'unpublished'> {
  for (const hashUrl of hashUrls) {
    const algorithm = algorithmOf(hashUrl);
    if (!algorithm) continue;
    const { name, hexLength } = ALGORITHMS[algorithm]!;
    let text: string;
    try {
      text = (await http.getBytes(hashUrl, { headers: { accept: 'text/plain, */*' }, ...(signal ? { signal } : {}) })).body.toString('utf8');
    } catch (err) {
      if (err instanceof HttpStatusError && [403, 404, 410].includes(err.status)) continue;
      throw err instanceof FetchError ? new FetchError(`${docUrl}: cannot read its ${name} hash file (${err.message})`) : err;
    }
    const published = text.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
    if (!new RegExp(`^[0-9a-f]{${hexLength}}$`).test(published)) {
      throw new FetchError(`${docUrl}: its hash file ${hashUrl} holds no ${name} hash (${JSON.stringify(text.slice(0, 40))})`);
    }
    const actual = createHash(algorithm).update(doc).digest('hex');
    if (actual !== published) {
      throw new FetchError(`${docUrl}: does not match its ${name} hash published at ${hashUrl} (document ${actual.slice(0, 16)}…, published ${published.slice(0, 16)}…); refused, the stored copy is kept`);
    }
    return 'checked';
  }
  return 'unpublished';
}
