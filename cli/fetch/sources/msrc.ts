/**
 * Microsoft's CVRF v3 API: the `updates` index lists one document per month (`2024-Jan` …)
 * with its `CurrentReleaseDate`; each is fetched as JSON into `msrc/<ID>.json` when the index
 * says it changed since the file's mtime (set to that date on write). The build reads the
 * severity and the "Exploited:Yes" threat from them.
 */
import { stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { formatCount, progress } from '../../../lib/log.ts';
import { writeFileAtomic } from '../atomic.ts';
import { FetchError, describeError } from '../errors.ts';
import { parseJsonBody } from '../http.ts';
import { getListing, listingKey } from '../listing.ts';
import type { FetchContext, SourceFetcher, SourceOutcome } from './types.ts';

export interface MsrcUpdate {
  id: string;
  url: string;
  released: string;
}

export function parseMsrcUpdates(value: unknown, what: string): MsrcUpdate[] {
  const list = (value as { value?: unknown })?.value;
  if (!Array.isArray(list)) throw new FetchError(`${what}: no value array`);
  const out: MsrcUpdate[] = [];
  for (const item of list as Array<Record<string, unknown>>) {
    const id = item?.ID;
    const url = item?.CvrfUrl;
    const released = Date.parse(String(item?.CurrentReleaseDate ?? item?.InitialReleaseDate ?? ''));
    if (typeof id !== 'string' || !/^[A-Za-z0-9-]+$/.test(id) || typeof url !== 'string' || Number.isNaN(released)) continue;
    out.push({ id, url, released: new Date(released).toISOString() });
  }
  if (out.length === 0 && list.length > 0) throw new FetchError(`${what}: no entry with ID, CvrfUrl and CurrentReleaseDate`);
  return out;
}

/** The month a CVRF document says it is (`DocumentTracking.Identification.ID.Value`), or null. */
function servedId(doc: unknown): string | null {
  const id = (doc as { DocumentTracking?: { Identification?: { ID?: { Value?: unknown } } } })?.DocumentTracking?.Identification?.ID?.Value;
  return typeof id === 'string' && id.trim() ? id.trim() : null;
}

export const msrcSource: SourceFetcher = {
  name: 'msrc',
  async fetch(ctx: FetchContext): Promise<SourceOutcome> {
    const cfg = ctx.config.sources.msrc;
    // Conditional: an unchanged index costs a 304 and its kept copy is read (listing.ts).
    const index = await getListing(
      ctx.http,
      cfg.updatesUrl,
      { sourceDir: ctx.dir, key: listingKey('msrc', cfg.updatesUrl), conditional: !ctx.full, signal: ctx.signal, headers: { accept: 'application/json' } },
      (body, url) => parseMsrcUpdates(parseJsonBody(body, 'MSRC CVRF updates', url), `MSRC CVRF updates from ${url}`),
    );
    const updates = index.value.filter(
      (u) => cfg.sinceYear === null || Number(u.released.slice(0, 4)) >= cfg.sinceYear,
    );
    const todo: MsrcUpdate[] = [];
    for (const u of updates) {
      const s = await stat(join(ctx.dir, `${u.id}.json`)).catch(() => null);
      if (ctx.full || !s || Math.floor(s.mtimeMs / 1000) < Math.floor(Date.parse(u.released) / 1000)) todo.push(u);
    }
    const bar = progress('msrc', todo.length, 'documents');
    let bytes = index.bytes;
    const failures: string[] = [];
    /** Months answered with another month's document: skipped, asked for again next run. */
    const misfiled: string[] = [];
    try {
      // Sequential: monthly documents are large (tens of MB) and Microsoft's API is slow to build them.
      for (const u of todo) {
        ctx.signal.throwIfAborted();
        try {
          const raw = (await ctx.http.getBytes(u.url, { headers: { accept: 'application/json' }, signal: ctx.signal })).body;
          let doc: unknown;
          try {
            doc = JSON.parse(raw.toString('utf8'));
          } catch (err) {
            throw new FetchError(`MSRC ${u.id} from ${u.url}: malformed JSON (${(err as Error).message})`);
          }
          if (!Array.isArray((doc as { Vulnerability?: unknown })?.Vulnerability)) {
            throw new FetchError(`MSRC ${u.id} from ${u.url}: not a CVRF document (no Vulnerability array)`);
          }
          // The API answers one month's URL with another month's document (2026-Jan serves
          // "February 2026 Security Updates", MSRC-Microsoft-Security-Updates-API#178, open):
          // stored under the month asked for, that month's CVEs were lost and the other's read
          // twice. Skipped, not failed: the upstream fault lasts for months and is no reason to
          // fail the source (and with it the job) every run; the stored copy is kept, and the
          // file's date left as it was, so the month is asked for again next run.
          const served = servedId(doc);
          if (served !== null && served.toLowerCase() !== u.id.toLowerCase()) {
            const title = (doc as { DocumentTitle?: { Value?: unknown } }).DocumentTitle?.Value;
            ctx.log(`  msrc: ${u.url} answers with ${served}'s document${typeof title === 'string' ? ` ("${title}")` : ''}, not ${u.id}'s; skipped, asked for again next run`);
            misfiled.push(`${u.id} (served ${served})`);
            continue;
          }
          const file = join(ctx.dir, `${u.id}.json`);
          await writeFileAtomic(file, raw);
          const when = new Date(u.released);
          await utimes(file, when, when);
          bytes += raw.length;
          bar.tick();
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          failures.push(describeError(err));
        }
      }
    } finally {
      bar.stop();
    }
    if (failures.length) throw new FetchError(`${failures.length} of ${todo.length} documents failed (first: ${failures[0]})`);
    const newest = updates.reduce<string | null>((m, u) => (!m || u.released > m ? u.released : m), null);
    const fetched = todo.length - misfiled.length;
    return {
      records: fetched,
      bytes,
      watermark: newest,
      unchanged: fetched === 0,
      detail: `${formatCount(fetched)} of ${formatCount(updates.length)} monthly documents${misfiled.length ? `; skipped, another month's document served: ${misfiled.join(', ')}` : ''}`,
    };
  },
};
