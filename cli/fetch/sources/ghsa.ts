/**
 * GitHub Security Advisories through the OSV bulk export
 * (`<base>/<ecosystem>/all.zip`, `modified_id.csv`, `<id>.json`). The first run, and every
 * `fullRefreshDays`, downloads each ecosystem's `all.zip`; runs in between read
 * `modified_id.csv` (one conditional request when nothing changed) and fetch only the records
 * modified since the watermark, and those listed late (changedRows), into
 * `ghsa/<ecosystem>/updates/<ID>.json`. The build keeps the latest `modified` per id, so
 * updates simply sit beside the archive they supersede. A listed
 * record the bucket answers 404 for is skipped (named in the log); any other failure keeps the
 * ecosystem's watermark, so the next run asks again (for the records it does not hold yet).
 *
 * `modified_id.csv` is read whole (it is not reliably sorted across re-processing), and the
 * incremental fetch keeps only `idPrefixes` (GHSA-); all.zip is kept as published, so it also
 * carries the ecosystem's other OSV records (PYSEC-, GO-, RUSTSEC-, MAL- …).
 */
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { formatCount } from '../../../lib/log.ts';
import { writeFileAtomic, writeJsonAtomic } from '../atomic.ts';
import { fetchFile } from '../download.ts';
import { FetchError, describeError } from '../errors.ts';
import { HttpStatusError, parseJsonBody, type BodyResponse } from '../http.ts';
import { runPool } from '../pool.ts';
import { readStateFile } from '../state-file.ts';
import { ValidatorStore, conditionalHeaders, validatorsOf, type Validators } from '../validators.ts';
import { verifyZip } from '../verify.ts';
import type { FetchContext, SourceFetcher, SourceOutcome } from './types.ts';

interface EcosystemState {
  /** Records modified up to here are in the raw set (ISO). */
  watermark: string | null;
  /** When all.zip was last confirmed current (ISO). */
  fullAt: string | null;
  /** Validators of the last modified_id.csv read. */
  csv?: Validators;
  /**
   * `<id>@<modified>` of the listed GHSA rows modified within `overlapHours` before the
   * watermark, as of the last modified_id.csv read (changedRows).
   */
  recent?: string[];
}

type GhsaState = Record<string, EcosystemState>;

const STATE_FILE = '_state.json';

export function ecosystemFolder(ecosystem: string): string {
  return ecosystem.replace(/[^A-Za-z0-9.+-]/g, '_');
}

const rowKey = (r: { id: string; modified: string }) => `${r.id}@${r.modified}`;

/** The instant `hours` before `iso`, as ISO. */
function hoursBefore(iso: string, hours: number): string {
  return new Date(Date.parse(iso) - hours * 3_600_000).toISOString();
}

/**
 * The rows to fetch: modified after the watermark, and the late arrivals. OSV exports records as
 * it imports them, not in `modified` order: a record modified at 10:00 can first be listed after
 * one modified at 11:00 was, and then sits below the watermark (11:00) for good; it was skipped
 * until the weekly all.zip. So a row modified within `overlapHours` before the watermark that the
 * previous listing did not hold (`recent`) is fetched too; one it held is not fetched again.
 */
export function changedRows(
  rows: ReadonlyArray<{ modified: string; id: string }>,
  st: Pick<EcosystemState, 'watermark' | 'recent'>,
  overlapHours: number,
  wanted: (id: string) => boolean,
): Array<{ modified: string; id: string }> {
  const watermark = st.watermark!;
  const seen = st.recent ? new Set(st.recent) : null;
  const floor = hoursBefore(watermark, overlapHours);
  return rows.filter((r) => wanted(r.id) && (r.modified > watermark || (seen !== null && r.modified > floor && !seen.has(rowKey(r)))));
}

/** Whether `file` (an OSV record stored by an earlier run) is already the version modified at `modified`, or a later one. */
async function holdsVersion(file: string, modified: string): Promise<boolean> {
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null) return false;
  try {
    const stored = Date.parse(String((JSON.parse(text) as { modified?: unknown }).modified));
    return !Number.isNaN(stored) && stored >= Date.parse(modified);
  } catch {
    return false;
  }
}

/** Rows of modified_id.csv: `<RFC3339>,<ID>` or `<RFC3339>,<ECOSYSTEM>/<ID>`; a header is skipped. */
export function parseModifiedIds(text: string): Array<{ modified: string; id: string }> {
  const out: Array<{ modified: string; id: string }> = [];
  for (const line of text.split(/\r?\n/)) {
    const comma = line.indexOf(',');
    if (comma < 0) continue;
    const modified = line.slice(0, comma).trim();
    const ref = line.slice(comma + 1).trim();
    if (!/^\d{4}-\d{2}-\d{2}T/.test(modified) || !ref) continue;
    out.push({ modified: new Date(modified).toISOString(), id: ref.slice(ref.lastIndexOf('/') + 1) });
  }
  return out;
}

export const ghsaSource: SourceFetcher = {
  name: 'ghsa',
  async fetch(ctx: FetchContext): Promise<SourceOutcome> {
    const cfg = ctx.config.sources.ghsa;
    const stateFile = join(ctx.dir, STATE_FILE);
    const state = ((await readStateFile(stateFile, ctx.log)) ?? {}) as GhsaState;
    const store = await ValidatorStore.load(ctx.dir);
    const totals = { records: 0, bytes: 0, archives: 0, updates: 0, missing: 0 };
    const errors: string[] = [];

    for (const ecosystem of cfg.ecosystems) {
      ctx.signal.throwIfAborted();
      const folder = join(ctx.dir, ecosystemFolder(ecosystem));
      const zipPath = join(folder, 'all.zip');
      const base = `${cfg.baseUrl.replace(/\/$/, '')}/${encodeURIComponent(ecosystem)}`;
      const st: EcosystemState = state[ecosystem] ?? { watermark: null, fullAt: null };
      const age = st.fullAt ? ctx.now().getTime() - Date.parse(st.fullAt) : Infinity;
      let needFull = ctx.full || !existsSync(zipPath) || !st.watermark || age > cfg.fullRefreshDays * 86_400_000;
      try {
        if (!needFull) {
          const res = await ctx.http.getBytes(`${base}/modified_id.csv`, { headers: conditionalHeaders(st.csv), signal: ctx.signal });
          if (res.status !== 304) {
            const text = res.body.toString('utf8');
            totals.bytes += res.body.length;
            const rows = parseModifiedIds(text);
            if (rows.length === 0 && text.trim()) throw new FetchError(`${ecosystem} modified_id.csv from ${res.url}: no rows of <modified>,<id>`);
            const wanted = (id: string) => cfg.idPrefixes.some((p) => id.startsWith(p));
            const changed = changedRows(rows, st, cfg.overlapHours, wanted);
            if (changed.length > cfg.maxIncremental) {
              ctx.log(`  ghsa ${ecosystem}: ${formatCount(changed.length)} changed records; downloading all.zip instead`);
              needFull = true;
            } else {
              const failures = await runPool(
                changed,
                cfg.concurrency,
                async (row) => {
                  // Stored by an earlier run that failed on another record (which kept the
                  // watermark): every changed record was downloaded again for that one.
                  if (await holdsVersion(join(folder, 'updates', `${row.id}.json`), row.modified)) return;
                  const url = `${base}/${encodeURIComponent(row.id)}.json`;
                  let res: BodyResponse;
                  try {
                    res = await ctx.http.getBytes(url, { headers: { accept: 'application/json' }, signal: ctx.signal });
                  } catch (err) {
                    // A row whose record the bucket does not hold (withdrawn, moved, a listing
                    // ahead of its records): failing the ecosystem for it kept the watermark where
                    // it was, so every changed record was fetched again at every run, forever.
                    if (!(err instanceof HttpStatusError && err.status === 404)) throw err;
                    ctx.log(`  ghsa ${ecosystem}: ${row.id} is listed in modified_id.csv (modified ${row.modified}) but ${err.url} answers 404; skipped`);
                    totals.missing++;
                    return;
                  }
                  // Checked, then stored as served: byte for byte what OSV published.
                  const record = parseJsonBody(res.body, `ghsa ${row.id}`, res.url);
                  if ((record as { id?: unknown })?.id !== row.id) throw new FetchError(`ghsa ${row.id} from ${res.url}: the record's id does not match`);
                  await writeFileAtomic(join(folder, 'updates', `${row.id}.json`), res.body);
                  totals.bytes += res.body.length;
                  totals.updates++;
                  totals.records++;
                },
                ctx.signal,
              );
              if (failures.length) {
                throw new FetchError(`${failures.length} of ${changed.length} changed records failed (first: ${describeError(failures[0]!.error)})`);
              }
              const newest = rows.reduce((m, r) => (r.modified > m ? r.modified : m), st.watermark!);
              const floor = hoursBefore(newest, cfg.overlapHours);
              const recent = rows.filter((r) => wanted(r.id) && r.modified > floor).map(rowKey);
              state[ecosystem] = { ...st, watermark: newest, csv: validatorsOf(res), recent };
            }
          }
        }
        if (needFull) {
          const got = await fetchFile(ctx.http, {
            url: `${base}/all.zip`,
            dest: zipPath,
            sourceDir: ctx.dir,
            store,
            conditional: !ctx.full,
            signal: ctx.signal,
            verify: (tmp, what) => verifyZip(tmp, what, (n) => n.toLowerCase().endsWith('.json')),
          });
          const now = ctx.now().toISOString();
          if (got.changed || !st.watermark) {
            await rm(join(folder, 'updates'), { recursive: true, force: true });
            const exported = got.watermark ? Date.parse(got.watermark) : ctx.now().getTime();
            state[ecosystem] = { watermark: new Date(exported - cfg.overlapHours * 3_600_000).toISOString(), fullAt: now };
            totals.records += got.records ?? 0;
            totals.bytes += got.bytes;
            totals.archives++;
          } else {
            state[ecosystem] = { ...st, fullAt: now };
          }
        }
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        errors.push(`${ecosystem}: ${describeError(err)}`);
      }
      await writeJsonAtomic(stateFile, state);
    }

    if (errors.length) throw new FetchError(`${errors.length} of ${cfg.ecosystems.length} ecosystems failed: ${errors.join('; ')}`);
    const marks = cfg.ecosystems.map((e) => state[e]?.watermark).filter((w): w is string => !!w);
    return {
      records: totals.records,
      bytes: totals.bytes,
      watermark: marks.length ? marks.reduce((a, b) => (a < b ? a : b)) : null,
      unchanged: totals.records === 0,
      detail: `${totals.archives} all.zip, ${formatCount(totals.updates)} updated records${totals.missing ? `, ${formatCount(totals.missing)} listed but missing (404, skipped)` : ''}`,
    };
  },
};
