/**
 * CVE List V5 release assets (github.com/CVEProject/cvelistV5). Every release carries the
 * baseline of that midnight (`YYYY-MM-DD_all_CVEs_at_midnight.zip.zip`, a zip inside a zip) and
 * a delta of everything changed since that midnight (`…_delta_CVEs_at_HHMMZ.zip`, or
 * `…_at_end_of_day.zip`). Assets are found through the releases API, never guessed (their date
 * prefix does not always match the tag).
 *
 * The raw set kept in `cvelist/` is one baseline plus, for each later day, that day's last
 * delta: so a daily run downloads a few MB instead of the ~500 MB baseline, which is refreshed
 * only when older than `baselineMaxAgeDays` (deltas are known to miss records, cvelistV5#112).
 * Wrapper zips are unwrapped by streaming their single member to disk; obsolete files are
 * deleted only after every needed file is in place.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { formatCount } from '../../../lib/log.ts';
import { moveIntoPlace, tempPathFor } from '../atomic.ts';
import { downloadToTemp } from '../download.ts';
import { FetchError } from '../errors.ts';
import { parseJsonBody } from '../http.ts';
import { getListing, listingKey } from '../listing.ts';
import { extractSingleMember, zipEntryNames } from '../verify.ts';
import type { FetchContext, SourceFetcher, SourceOutcome } from './types.ts';

interface Asset {
  name: string;
  url: string;
}

/** The `time` of a day's end-of-day delta: after every hourly one. */
const END_OF_DAY = '2400';

/** A baseline or delta, identified by its asset name. `time` orders deltas within a day. */
export interface CvelistFile {
  kind: 'baseline' | 'delta';
  date: string;
  /** `HHMM`; END_OF_DAY (`2400`) for end of day; `0000` for a baseline. */
  time: string;
  /** Name on disk: the asset name with the wrapper `.zip.zip` reduced to `.zip`. */
  localName: string;
}

export function classifyAsset(name: string): CvelistFile | null {
  const base = /^(\d{4}-\d{2}-\d{2})_all_CVEs_at_midnight((?:\.zip)+)$/.exec(name);
  if (base) return { kind: 'baseline', date: base[1]!, time: '0000', localName: `${base[1]}_all_CVEs_at_midnight.zip` };
  const delta = /^(\d{4}-\d{2}-\d{2})_delta_CVEs_at_(\d{4})Z((?:\.zip)+)$/.exec(name);
  if (delta) return { kind: 'delta', date: delta[1]!, time: delta[2]!, localName: `${delta[1]}_delta_CVEs_at_${delta[2]}Z.zip` };
  const eod = /^(\d{4}-\d{2}-\d{2})_delta_CVEs_at_end_of_day((?:\.zip)+)$/.exec(name);
  if (eod) return { kind: 'delta', date: eod[1]!, time: END_OF_DAY, localName: `${eod[1]}_delta_CVEs_at_end_of_day.zip` };
  return null;
}

function later(a: CvelistFile, b: CvelistFile): boolean {
  return a.date > b.date || (a.date === b.date && a.time > b.time);
}

function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export interface CvelistPlan {
  baseline: CvelistFile & { url?: string };
  deltas: Array<CvelistFile & { url?: string }>;
}

/**
 * Which files make the current raw set: keep the local baseline while it is fresh enough and
 * every later day has its end-of-day delta in the listing (today: its latest delta); otherwise
 * take the newest baseline.
 */
export function planCvelist(
  available: Array<CvelistFile & { url: string }>,
  local: CvelistFile[],
  maxAgeDays: number,
  /** The listing read, for the error message (its URL). */
  listedAt = 'the releases listing',
): CvelistPlan {
  const baselines = available.filter((f) => f.kind === 'baseline').sort((a, b) => (a.date < b.date ? 1 : -1));
  const newest = baselines[0];
  if (!newest) {
    throw new FetchError(`cvelistV5 releases from ${listedAt} list no baseline asset (\`*_all_CVEs_at_midnight.zip.zip\`) among ${available.length} recognised assets`);
  }
  const lastDelta = new Map<string, CvelistFile & { url: string }>();
  for (const f of available) {
    if (f.kind !== 'delta') continue;
    const cur = lastDelta.get(f.date);
    if (!cur || later(f, cur)) lastDelta.set(f.date, f);
  }
  const deltasFrom = (baseDate: string) => {
    const out: Array<CvelistFile & { url: string }> = [];
    for (let d = baseDate; d <= newest.date; d = addDays(d, 1)) {
      const delta = lastDelta.get(d);
      // A past day's delta must be its end-of-day one: a day without a delta, or whose last
      // delta is an hourly one (the end-of-day release missing from the listing), breaks the
      // chain. Taken, the changes of its last hours were missing until the next baseline, up
      // to baselineMaxAgeDays later; the newest baseline holds them.
      if (delta && (d === newest.date || delta.time === END_OF_DAY)) out.push(delta);
      else if (d < newest.date) return null;
    }
    return out;
  };
  const localBase = local.filter((f) => f.kind === 'baseline').sort((a, b) => (a.date < b.date ? 1 : -1))[0];
  if (localBase && addDays(localBase.date, maxAgeDays) >= newest.date) {
    const chain = deltasFrom(localBase.date);
    if (chain) return { baseline: localBase, deltas: chain };
  }
  return { baseline: newest, deltas: deltasFrom(newest.date) ?? [] };
}

async function listReleases(ctx: FetchContext): Promise<Array<CvelistFile & { url: string }>> {
  const cfg = ctx.config.sources.cvelist;
  const headers: Record<string, string> = { accept: 'application/vnd.github+json' };
  // GitHub allows 60 unauthenticated API calls an hour; a token lifts that for busy hosts.
  const token = process.env.GITHUB_TOKEN?.trim();
  if (token && new URL(cfg.releasesUrl).host === 'api.github.com') headers.authorization = `Bearer ${token}`;
  const out: Array<CvelistFile & { url: string }> = [];
  for (let page = 1; page <= cfg.releasePages; page++) {
    const url = new URL(cfg.releasesUrl);
    url.searchParams.set('per_page', '100');
    url.searchParams.set('page', String(page));
    // Conditional (GitHub does not count a 304 against the rate limit): an unchanged page is
    // read from its kept copy (listing.ts).
    const { value: releases } = await getListing(
      ctx.http,
      url.toString(),
      { sourceDir: ctx.dir, key: listingKey('releases', url.toString()), conditional: !ctx.full, headers, signal: ctx.signal },
      (body, served) => {
        const value = parseJsonBody(body, 'cvelistV5 releases', served);
        if (!Array.isArray(value)) throw new FetchError(`cvelistV5 releases from ${served}: expected a JSON array`);
        return value as unknown[];
      },
    );
    for (const r of releases) {
      const assets = (r as { assets?: unknown }).assets;
      if (!Array.isArray(assets)) continue;
      for (const a of assets as Asset[] & Array<{ browser_download_url?: string }>) {
        const f = classifyAsset(String(a.name ?? ''));
        if (f && typeof a.browser_download_url === 'string') out.push({ ...f, url: a.browser_download_url });
      }
    }
    if (releases.length < 100) break;
  }
  return out;
}

/** Downloads one asset, unwraps a zip-in-zip, checks the result and moves it into place. */
async function storeAsset(ctx: FetchContext, file: CvelistFile & { url?: string }): Promise<{ bytes: number; records: number }> {
  const dest = join(ctx.dir, file.localName);
  const got = await downloadToTemp(ctx.http, file.url!, dest, { label: `cvelist ${file.localName}`, signal: ctx.signal });
  if (got.kind !== 'downloaded') throw new FetchError(`${file.url}: unexpected 304`);
  const what = `cvelist ${file.localName} from ${file.url}`;
  let ready = got.tmp;
  try {
    const names = await zipEntryNames(got.tmp, what);
    const members = names.filter((n) => !n.endsWith('/'));
    if (members.length === 1 && members[0]!.toLowerCase().endsWith('.zip')) {
      ready = tempPathFor(dest);
      await extractSingleMember(got.tmp, ready, what);
      await rm(got.tmp, { force: true });
    }
    const records = (await zipEntryNames(ready, what)).filter((n) => /CVE-\d{4}-\d+\.json$/.test(n)).length;
    if (records === 0 && file.kind === 'baseline') throw new FetchError(`${what}: the baseline holds no CVE records`);
    await moveIntoPlace(ready, dest);
    return { bytes: got.bytes, records };
  } catch (err) {
    await rm(got.tmp, { force: true });
    await rm(ready, { force: true });
    throw err;
  }
}

export const cvelistSource: SourceFetcher = {
  name: 'cvelist',
  async fetch(ctx: FetchContext): Promise<SourceOutcome> {
    const available = await listReleases(ctx);
    const localNames = await readdir(ctx.dir).catch(() => [] as string[]);
    const local = localNames.map(classifyAsset).filter((f): f is CvelistFile => f !== null);
    const cfg = ctx.config.sources.cvelist;
    const plan = planCvelist(available, ctx.full ? [] : local, cfg.baselineMaxAgeDays, ctx.http.rewrite(cfg.releasesUrl));
    const wanted = [plan.baseline, ...plan.deltas];
    let bytes = 0;
    let records = 0;
    let downloaded = 0;
    for (const f of wanted) {
      // Asset names are unique per hour: a file already here is the same file.
      if (localNames.includes(f.localName) || !f.url) continue;
      const got = await storeAsset(ctx, f);
      bytes += got.bytes;
      records += got.records;
      downloaded++;
    }
    const keep = new Set(wanted.map((f) => f.localName));
    for (const f of local) if (!keep.has(f.localName)) await rm(join(ctx.dir, f.localName), { force: true });
    const newest = wanted.reduce((a, b) => (later(b, a) ? b : a));
    const watermark = new Date(`${newest.date}T${newest.time === END_OF_DAY ? '23:59' : `${newest.time.slice(0, 2)}:${newest.time.slice(2)}`}:00Z`).toISOString();
    return {
      records: downloaded ? records : null,
      bytes,
      watermark,
      unchanged: downloaded === 0,
      detail: downloaded
        ? `${downloaded} archive${downloaded === 1 ? '' : 's'} (${formatCount(records)} CVE records), baseline ${plan.baseline.date}, ${plan.deltas.length} delta(s)`
        : 'up to date',
    };
  },
};
