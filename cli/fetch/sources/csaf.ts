/**
 * CSAF 2.0 vendor advisories, for each configured provider: `provider-metadata.json` → its
 * ROLIE feeds (preferred, CSAF §7.3.2) or directory distributions (`changes.csv`, plus Red Hat's
 * `deletions.csv`) → one file per document at `csaf/<vendor>/<year>/<file>.json`: the year folder
 * of its URL, else the year of its initial release (csaf-yearless.ts), so it keeps one path.
 *
 * A first run of a directory provider that publishes `archive_latest.txt` (Red Hat) starts from
 * that archive instead of one request per document (csaf-archive.ts), then goes on from
 * changes.csv like any later run.
 *
 * No watermark file: each document's mtime is set to the `current_release_date`/`updated` the
 * listing gave, and a document is fetched only when the listing is newer than the file. That
 * makes unsorted listings (CISA's changes.csv has hundreds of inversions), interrupted runs and
 * first runs all the same case. A document that does not match the hash its provider publishes
 * beside it is refused (csaf-hash.ts). One failing document does not stop the others.
 */
import { stat, rm, utimes } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parse as parseCsvSync } from 'csv-parse/sync';
import { formatCount, progress } from '../../../lib/log.ts';
import type { CsafProvider } from '../config.ts';
import { writeFileAtomic } from '../atomic.ts';
import { FetchError, describeError } from '../errors.ts';
import { HttpStatusError, parseJsonBody } from '../http.ts';
import { getListing, listingKey } from '../listing.ts';
import { runPool } from '../pool.ts';
import { bootstrapFromArchive, needsBootstrap } from './csaf-archive.ts';
import { checkPublishedHash, preferredHashUrls } from './csaf-hash.ts';
import { YearlessCopies, initialReleaseYear } from './csaf-yearless.ts';
import type { FetchContext, SourceFetcher, SourceOutcome } from './types.ts';

interface Listing {
  kind: 'rolie' | 'directory';
  url: string;
}

export interface CsafEntry {
  url: string;
  /** ISO time of the document's current release. */
  updated: string;
  /** `<year>/<file>.json`, relative to the vendor folder. */
  localPath: string;
  /** The URL names the year (`…/2024/x.json`); else the year is the initial release's (csaf-yearless.ts). */
  yearFolder: boolean;
  /** The hash files that may sit beside it, in the order to try (csaf-hash.ts). */
  hashUrls: string[];
}

function asObject(v: unknown): Record<string, unknown> | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** Feeds and directories a provider lists, filtered by the provider's include/exclude. */
export function listingsOf(meta: unknown, provider: CsafProvider): Listing[] {
  const distributions = asObject(meta)?.distributions;
  // The caller prefixes the vendor (csafSource): said here too, it read "redhat: redhat: …".
  if (!Array.isArray(distributions)) throw new FetchError(`provider-metadata.json from ${provider.url} has no distributions`);
  const rolie: Listing[] = [];
  const dirs: Listing[] = [];
  for (const d of distributions.map(asObject)) {
    const feeds = asObject(d?.rolie)?.feeds;
    if (Array.isArray(feeds)) {
      for (const f of feeds.map(asObject)) {
        const tlp = String(f?.tlp_label ?? 'WHITE').toUpperCase();
        if (typeof f?.url === 'string' && (tlp === 'WHITE' || tlp === 'CLEAR')) rolie.push({ kind: 'rolie', url: f.url });
      }
    } else if (typeof d?.directory_url === 'string') {
      dirs.push({ kind: 'directory', url: d.directory_url });
    }
  }
  const keep = (l: Listing) =>
    (provider.include.length === 0 || provider.include.some((s) => l.url.includes(s))) && !provider.exclude.some((s) => l.url.includes(s));
  const chosen = (rolie.some(keep) ? rolie : dirs).filter(keep);
  if (chosen.length === 0) throw new FetchError(`provider-metadata.json from ${provider.url}: no ROLIE feed or directory left after the include/exclude filters`);
  return chosen;
}

/**
 * The URL of a path listed in a directory's changes.csv. Paths are relative to the directory,
 * except CISA's, which repeat the directory's own tail (`csaf_files/OT/white/2024/x.json` under
 * `…/csaf_files/OT/white/`): the repeated segments are dropped.
 */
export function resolveListedPath(directoryUrl: string, path: string): string {
  if (/^https?:\/\//i.test(path)) return path;
  const dir = new URL(directoryUrl.endsWith('/') ? directoryUrl : `${directoryUrl}/`);
  const dirSegs = dir.pathname.split('/').filter(Boolean);
  let segs = path.replace(/^\.?\//, '').split('/').filter(Boolean);
  for (let k = Math.min(dirSegs.length, segs.length - 1); k > 0; k--) {
    if (dirSegs.slice(-k).join('/') === segs.slice(0, k).join('/')) {
      segs = segs.slice(k);
      break;
    }
  }
  return new URL(segs.join('/'), dir).toString();
}

/** The year folder a document URL sits in (`…/2024/x.json`), or null. */
function yearFolderOf(url: string): string | null {
  const folder = new URL(url).pathname.split('/').filter(Boolean).at(-2);
  return folder && /^\d{4}$/.test(folder) ? folder : null;
}

/**
 * `<year>/<file>.json` for a document URL: the year folder it sits in, else the year of
 * `released` (its initial release as the listing says it: a ROLIE entry's `published`).
 */
export function localPathOf(url: string, released: string): string {
  const segs = new URL(url).pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const file = (segs.at(-1) ?? 'document.json').replace(/[^A-Za-z0-9._+-]/g, '_');
  return `${yearFolderOf(url) ?? released.slice(0, 4)}/${file.toLowerCase().endsWith('.json') ? file : `${file}.json`}`;
}

function isoOrNull(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/** Rows of changes.csv / deletions.csv: `path,timestamp`, quoted or not, in any order. */
export function parseChangesCsv(text: string, directoryUrl: string, what: string): CsafEntry[] {
  let rows: string[][];
  try {
    rows = parseCsvSync(text, { relax_column_count: true, skip_empty_lines: true, trim: true, bom: true }) as string[][];
  } catch (err) {
    throw new FetchError(`${what}: malformed CSV (${(err as Error).message})`);
  }
  const out: CsafEntry[] = [];
  for (const [path, when] of rows) {
    const updated = isoOrNull(when);
    if (!path || !updated || !path.toLowerCase().endsWith('.json')) continue;
    const url = resolveListedPath(directoryUrl, path);
    // A directory provider puts them beside the document (CSAF 2.0 §7.1.18).
    out.push({ url, updated, localPath: localPathOf(url, updated), yearFolder: yearFolderOf(url) !== null, hashUrls: [`${url}.sha512`, `${url}.sha256`] });
  }
  if (out.length === 0 && rows.length > 0) throw new FetchError(`${what}: no row of "<path>.json","<timestamp>"`);
  return out;
}

/**
 * `href` as an absolute URL: one relative to the feed (Atom's rule for a link without a base,
 * RFC 4287 §4.2.7) is resolved against `feedUrl`; one that is no URL at all is null.
 */
function absoluteUrl(href: string, feedUrl: string | undefined): string | null {
  try {
    return new URL(href, feedUrl).toString();
  } catch {
    return null;
  }
}

/**
 * Entries of a ROLIE feed (`feed.entry[]`: `content.src` or the `self` link, `updated`). An entry
 * whose link is relative is read against `feedUrl`; one whose link is no URL is left out like an
 * entry without one: it threw, and the whole provider failed at every run for that one entry.
 */
export function parseRolieFeed(value: unknown, what: string, feedUrl?: string): CsafEntry[] {
  const entries = asObject(asObject(value)?.feed)?.entry;
  if (!Array.isArray(entries)) throw new FetchError(`${what}: not a ROLIE feed (no feed.entry array)`);
  const out: CsafEntry[] = [];
  for (const e of entries.map(asObject)) {
    const links = Array.isArray(e?.link) ? e.link.map(asObject) : [];
    const href = asObject(e?.content)?.src ?? links.find((l) => l?.rel === 'self')?.href;
    const src = typeof href === 'string' ? absoluteUrl(href, feedUrl) : null;
    const published = isoOrNull(e?.published);
    const updated = isoOrNull(e?.updated) ?? published;
    if (!src || !updated) continue;
    // A ROLIE entry lists its hash files (rel "hash"); none listed, none asked for.
    const hashes = links
      .filter((l) => l?.rel === 'hash' && typeof l.href === 'string')
      .map((l) => absoluteUrl(l!.href as string, feedUrl))
      .filter((u): u is string => u !== null);
    out.push({ url: src, updated, localPath: localPathOf(src, published ?? updated), yearFolder: yearFolderOf(src) !== null, hashUrls: preferredHashUrls(hashes) });
  }
  return out;
}

function parseJson(what: string): (body: Buffer, url: string) => unknown {
  return (body, url) => parseJsonBody(body, what, url);
}

/**
 * A feed or directory's documents (and deletions). Every listing is asked for conditionally:
 * unchanged, it costs a 304 and its kept copy is read (listing.ts).
 */
async function readListing(ctx: FetchContext, vendor: string, listing: Listing): Promise<{ entries: CsafEntry[]; deletions: CsafEntry[]; bytes: number }> {
  const opts = (url: string) => ({ sourceDir: ctx.dir, key: listingKey(vendor, url), conditional: !ctx.full, signal: ctx.signal });
  if (listing.kind === 'rolie') {
    const what = `${vendor} ROLIE feed ${listing.url}`;
    const feed = await getListing(ctx.http, listing.url, { ...opts(listing.url), headers: { accept: 'application/json' } }, (body, url) =>
      parseRolieFeed(parseJsonBody(body, `${vendor} ROLIE feed`, url), what, listing.url),
    );
    return { entries: feed.value, deletions: [], bytes: feed.bytes };
  }
  const dir = listing.url.endsWith('/') ? listing.url : `${listing.url}/`;
  const changes = await getListing(ctx.http, `${dir}changes.csv`, opts(`${dir}changes.csv`), (body) =>
    parseChangesCsv(body.toString('utf8'), dir, `${vendor} ${dir}changes.csv`),
  );
  let deletions: CsafEntry[] = [];
  let bytes = changes.bytes;
  try {
    const got = await getListing(ctx.http, `${dir}deletions.csv`, opts(`${dir}deletions.csv`), (body) =>
      parseChangesCsv(body.toString('utf8'), dir, `${vendor} ${dir}deletions.csv`),
    );
    deletions = got.value;
    bytes += got.bytes;
  } catch (err) {
    // Only Red Hat publishes deletions.csv; elsewhere it is simply absent.
    if (!(err instanceof HttpStatusError && (err.status === 404 || err.status === 403))) throw err;
  }
  return { entries: changes.value, deletions, bytes };
}

async function isCurrent(file: string, updated: string): Promise<boolean> {
  const s = await stat(file).catch(() => null);
  return !!s && Math.floor(s.mtimeMs / 1000) >= Math.floor(Date.parse(updated) / 1000);
}

interface ProviderResult {
  fetched: number;
  bytes: number;
  deleted: number;
  listed: number;
  newest: string | null;
  failures: string[];
  /** Listed documents the provider answered 404/410 for: skipped, asked for again next run. */
  missing: number;
}

async function fetchProvider(ctx: FetchContext, provider: CsafProvider): Promise<ProviderResult> {
  const vendorDir = join(ctx.dir, provider.vendor);
  const meta = await getListing(
    ctx.http,
    provider.url,
    { sourceDir: ctx.dir, key: listingKey(provider.vendor, provider.url), conditional: !ctx.full, signal: ctx.signal, headers: { accept: 'application/json' } },
    parseJson(`${provider.vendor} provider-metadata.json`),
  );
  let listingBytes = meta.bytes;
  const byPath = new Map<string, CsafEntry>();
  const deleted = new Map<string, CsafEntry>();
  let fromArchive = 0;
  for (const listing of listingsOf(meta.value, provider)) {
    if (listing.kind === 'directory' && (await needsBootstrap(vendorDir, ctx.full))) {
      const boot = await bootstrapFromArchive(ctx, provider.vendor, listing.url, vendorDir);
      if (boot) {
        fromArchive += boot.documents;
        listingBytes += boot.bytes;
      }
    }
    const { entries, deletions, bytes } = await readListing(ctx, provider.vendor, listing);
    listingBytes += bytes;
    for (const e of entries) {
      const cur = byPath.get(e.localPath);
      if (!cur || e.updated > cur.updated) byPath.set(e.localPath, e);
    }
    for (const d of deletions) deleted.set(d.localPath, d);
  }
  // A document listed as deleted after its last change stays deleted.
  for (const [path, d] of deleted) if ((byPath.get(path)?.updated ?? '') <= d.updated) byPath.delete(path);

  const todo: CsafEntry[] = [];
  // After an archive bootstrap (--full included), the archive's files stand for the documents it held.
  const refetchAll = ctx.full && fromArchive === 0;
  const yearless = [...byPath.values()].some((e) => !e.yearFolder) ? await YearlessCopies.load(vendorDir) : null;
  for (const e of byPath.values()) {
    const stored = e.yearFolder ? [e.localPath] : yearless!.copiesOf(basename(e.localPath));
    // A document kept twice (under two years, by an earlier version) is fetched again: that keeps one.
    if (refetchAll || stored.length !== 1 || !(await isCurrent(join(vendorDir, stored[0]!), e.updated))) todo.push(e);
  }
  const result: ProviderResult = { fetched: fromArchive, bytes: listingBytes, deleted: 0, listed: byPath.size, newest: null, failures: [], missing: 0 };
  for (const e of byPath.values()) if (!result.newest || e.updated > result.newest) result.newest = e.updated;

  const bar = progress(`csaf ${provider.vendor}`, todo.length, 'documents');
  /** Documents stored without a hash file to check them against. */
  let unhashed = 0;
  try {
    const failures = await runPool(
      todo,
      ctx.config.sources.csaf.concurrency,
      async (e) => {
        let raw: Buffer;
        try {
          raw = (await ctx.http.getBytes(e.url, { headers: { accept: 'application/json' }, signal: ctx.signal })).body;
        } catch (err) {
          // A listed document the provider answers 404 or 410 for (a listing ahead of its
          // documents, one withdrawn without deletions.csv): failing for it marked CSAF failed at
          // every run. It is named, and asked for again next run (no file: it is not current).
          if (!(err instanceof HttpStatusError && (err.status === 404 || err.status === 410))) throw err;
          ctx.log(`  csaf ${provider.vendor}: ${e.url} is listed (updated ${e.updated}) but answers ${err.status}; skipped`);
          result.missing++;
          return;
        }
        let doc: unknown;
        try {
          doc = JSON.parse(raw.toString('utf8'));
        } catch (err) {
          throw new FetchError(`${e.url}: malformed JSON (${(err as Error).message})`);
        }
        const tracking = asObject(asObject(asObject(doc)?.document)?.tracking);
        if (typeof tracking?.id !== 'string') throw new FetchError(`${e.url}: not a CSAF document (no document.tracking.id)`);
        // After the shape: an HTML page answered 200 is named as one (not as a hash mismatch),
        // and costs no request for its hash file.
        if ((await checkPublishedHash(ctx.http, raw, e.url, e.hashUrls, ctx.signal)) === 'unpublished') unhashed++;
        const path = e.yearFolder ? e.localPath : `${initialReleaseYear(doc) ?? e.localPath.slice(0, 4)}/${basename(e.localPath)}`;
        const file = join(vendorDir, path);
        await writeFileAtomic(file, raw);
        const when = new Date(e.updated);
        await utimes(file, when, when);
        // Only once the new copy is in place: a failure never leaves the document nowhere.
        if (!e.yearFolder) await yearless!.settle(path);
        result.fetched++;
        result.bytes += raw.length;
        bar.tick();
      },
      ctx.signal,
    );
    result.failures = failures.map((f) => describeError(f.error));
    // Not one listed document there: the listing and the documents' URLs do not match (a mirror
    // serving one but not the other), not a few documents ahead of their publication.
    if (result.missing > 0 && result.missing === todo.length && todo.length === byPath.size) {
      throw new FetchError(`every one of the ${result.missing} listed documents answers 404/410 (first: ${todo[0]!.url})`);
    }
  } finally {
    bar.stop();
  }
  if (unhashed > 0) ctx.log(`  csaf ${provider.vendor}: ${formatCount(unhashed)} documents published without a .sha512/.sha256 beside them, stored unchecked`);
  for (const path of deleted.keys()) {
    if (byPath.has(path)) continue;
    const file = join(vendorDir, path);
    if (await stat(file).catch(() => null)) {
      await rm(file, { force: true });
      result.deleted++;
    }
  }
  return result;
}

export const csafSource: SourceFetcher = {
  name: 'csaf',
  async fetch(ctx: FetchContext): Promise<SourceOutcome> {
    const providers = ctx.config.sources.csaf.providers;
    const errors: string[] = [];
    const details: string[] = [];
    const newest: string[] = [];
    let fetched = 0;
    let bytes = 0;
    for (const provider of providers) {
      ctx.signal.throwIfAborted();
      try {
        const r = await fetchProvider(ctx, provider);
        fetched += r.fetched;
        bytes += r.bytes;
        if (r.newest) newest.push(r.newest);
        details.push(`${provider.vendor} ${formatCount(r.fetched)}/${formatCount(r.listed)}${r.deleted ? ` −${r.deleted}` : ''}${r.missing ? ` (${formatCount(r.missing)} listed but missing)` : ''}`);
        if (r.failures.length) errors.push(`${provider.vendor}: ${r.failures.length} documents failed (first: ${r.failures[0]})`);
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        errors.push(`${provider.vendor}: ${describeError(err)}`);
      }
    }
    if (errors.length) throw new FetchError(errors.join('; '));
    return {
      records: fetched,
      bytes,
      // The least fresh provider bounds how current the CSAF set is as a whole.
      watermark: newest.length ? newest.reduce((a, b) => (a < b ? a : b)) : null,
      unchanged: fetched === 0,
      detail: details.join(', '),
    };
  },
};
