/**
 * Listings (indexes naming the documents to fetch: the GitHub releases API, CSAF
 * `provider-metadata.json`, ROLIE feeds, `changes.csv`, `deletions.csv`, the MSRC index) are
 * fetched conditionally: the validators of the last good copy go out as If-None-Match /
 * If-Modified-Since, and on a 304 that copy, kept under `<source>/_listings/`, is read again.
 * Whatever the listing leads to is then decided exactly as after a download (documents already
 * current are not fetched again), so a 304 rewrites nothing, and a document that failed last
 * time is still retried.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic.ts';
import type { ExchangeOptions, HttpClient } from './http.ts';
import { ValidatorStore, conditionalHeaders, validatorsOf } from './validators.ts';

export const LISTINGS_DIR = '_listings';

export interface Listing<T> {
  value: T;
  /** The server answered 304: `value` comes from the kept copy. */
  notModified: boolean;
  /** Bytes downloaded (0 on a 304). */
  bytes: number;
  url: string;
}

export interface ListingOptions extends ExchangeOptions {
  /** Source folder (`<raw>/<source>`): the validators and the kept copies live there. */
  sourceDir: string;
  /** Name of the kept copy under `_listings/`, unique in the source (e.g. `redhat/changes.csv`). */
  key: string;
  /** false: ask unconditionally (`--full`). */
  conditional?: boolean;
}

/**
 * GETs a listing and parses it with `parse` (which throws FetchError for a bad one). Only a
 * listing that parsed is kept and its validators stored, so a broken answer is asked for in
 * full next time instead of being answered 304 forever.
 */
export async function getListing<T>(http: HttpClient, url: string, opts: ListingOptions, parse: (body: Buffer, url: string) => T): Promise<Listing<T>> {
  const store = await ValidatorStore.load(opts.sourceDir);
  const copy = join(opts.sourceDir, LISTINGS_DIR, opts.key);
  const storeKey = `${LISTINGS_DIR}/${opts.key}`;
  const validators = opts.conditional !== false && existsSync(copy) ? store.get(storeKey, url) : undefined;
  const res = await http.getBytes(url, { ...opts, headers: { ...opts.headers, ...conditionalHeaders(validators) } });
  if (res.status === 304) {
    return { value: parse(await readFile(copy), res.url), notModified: true, bytes: 0, url: res.url };
  }
  const value = parse(res.body, res.url);
  await writeFileAtomic(copy, res.body);
  await store.set(storeKey, url, validatorsOf(res));
  return { value, notModified: false, bytes: res.body.length, url: res.url };
}

/** A kept-copy name for `url` under `prefix`: readable, and unique per URL. */
export function listingKey(prefix: string, url: string): string {
  const name = new URL(url).pathname.split('/').filter(Boolean).at(-1) ?? 'index';
  const hash = createHash('sha256').update(url).digest('hex').slice(0, 10);
  return `${prefix}/${hash}-${name.replace(/[^A-Za-z0-9._-]/g, '_')}`;
}
