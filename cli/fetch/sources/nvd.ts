/**
 * NVD CVE API 2.0. First run: a full pull by `startIndex` pages (2,000 per page), written into
 * `nvd/_full-partial/` and swapped into `nvd/full/` only when complete, so an interrupted or
 * forced re-pull never leaves the build a half set. After that: incremental windows of
 * `lastModStartDate`/`lastModEndDate` (at most 120 days each) from the watermark, written to
 * `nvd/delta/`. The cursor (`nvd/_state.json`) is saved after every page, so a killed run
 * resumes at the next page of the same query (the window's end is kept, so the result set
 * does not shift under it). A result set that shrinks while it is paged is read again from
 * far enough back that no record is skipped (readPages).
 *
 * The client enforces NVD's budget itself (5 requests / 30 s, 50 with `NVD_API_KEY`, sent as
 * the `apiKey` header) and retries 5xx with backoff and `Retry-After`; a 403 or 429 (the budget
 * used up, by another client on the same address or key) is retried once a whole window has
 * passed.
 */
import { existsSync } from 'node:fs';
import { readFile, rename, rm, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { formatCount, progress } from '../../../lib/log.ts';
import { writeFileAtomic, writeJsonAtomic } from '../atomic.ts';
import { FetchError } from '../errors.ts';
import { readStateFile } from '../state-file.ts';
import { RETRY_STATUSES, UnusableBodyError, parseJsonOrRetry } from '../http.ts';
import { RollingWindowLimiter, realSleep, type RateLimiter } from '../rate-limit.ts';
import { PartialProgressError, type FetchContext, type SourceFetcher, type SourceOutcome } from './types.ts';

interface Cursor {
  nextIndex: number;
  totalResults: number | null;
  /** Step backs so far (see readPages); pages read after one are named `-r<n>`. */
  rereads?: number;
}

export interface NvdState {
  /** Every CVE last modified before this instant is in the raw set (ISO). */
  watermark: string | null;
  /** A full pull in progress; its start becomes the watermark once it completes. */
  full: (Cursor & { startedAt: string }) | null;
  /** An incremental window in progress (bounds kept so a resumed run asks the same query). */
  window: (Cursor & { start: string; end: string }) | null;
  /** CVE records in `full/` as NVD counted them (totalResults) when the last full pull was swapped in. */
  fullRecords: number | null;
}

const STATE_FILE = '_state.json';
const PARTIAL_DIR = '_full-partial';
const OLD_DIR = '_full-old';
const DAY_MS = 86_400_000;

/**
 * The rate window as the client keeps it: NVD's, plus 1/30 of it (1 s of NVD's 30 s) for clocks
 * and timers that do not agree to the millisecond. Requests are booked when their answer arrives
 * (rate-limit.ts), later than NVD counts them, so the margin is on top of that.
 */
export function clientRateWindowMs(rateWindowSeconds: number): number {
  const ms = rateWindowSeconds * 1000;
  return Math.round(ms + ms / 30);
}

export async function loadNvdState(dir: string, log: (line: string) => void = () => {}): Promise<NvdState> {
  const s = ((await readStateFile(join(dir, STATE_FILE), log)) ?? {}) as Partial<NvdState>;
  return { watermark: s.watermark ?? null, full: s.full ?? null, window: s.window ?? null, fullRecords: s.fullRecords ?? null };
}

/** NVD's extended ISO-8601 with an explicit offset (URLSearchParams encodes the `+`). */
export function nvdDate(d: Date): string {
  return d.toISOString().replace('Z', '+00:00');
}

function compact(iso: string): string {
  return iso.replace(/[-:]/g, '').replace(/\.\d+/, '').replace('+0000', 'Z');
}

function pad(n: number): string {
  return String(n).padStart(7, '0');
}

interface Page {
  raw: Buffer;
  count: number;
  totalResults: number;
}

function checkEnvelope(value: unknown, startIndex: number, what: string): { count: number; totalResults: number } {
  if (typeof value !== 'object' || value === null) throw new FetchError(`${what}: not a JSON object`);
  const v = value as Record<string, unknown>;
  if (!Array.isArray(v.vulnerabilities)) throw new FetchError(`${what}: no vulnerabilities array`);
  if (typeof v.totalResults !== 'number') throw new FetchError(`${what}: no totalResults`);
  if (typeof v.startIndex === 'number' && v.startIndex !== startIndex) {
    throw new FetchError(`${what}: answered startIndex ${v.startIndex} for ${startIndex}`);
  }
  const bad = v.vulnerabilities.findIndex((x) => typeof (x as { cve?: { id?: unknown } })?.cve?.id !== 'string');
  if (bad >= 0) throw new FetchError(`${what}: vulnerabilities[${bad}] has no cve.id`);
  return { count: v.vulnerabilities.length, totalResults: v.totalResults };
}

export const nvdSource: SourceFetcher = {
  name: 'nvd',
  async fetch(ctx: FetchContext): Promise<SourceOutcome> {
    const cfg = ctx.config.sources.nvd;
    const apiKey = process.env.NVD_API_KEY?.trim() || undefined;
    const windowMs = clientRateWindowMs(cfg.rateWindowSeconds);
    const limiter = new RollingWindowLimiter(cfg.requestsPerWindow ?? (apiKey ? 50 : 5), windowMs, Date.now, realSleep);
    const run = new NvdRun(ctx, limiter, apiKey, windowMs);
    try {
      await run.execute();
    } catch (err) {
      throw new PartialProgressError(err, run.state.watermark);
    }
    return run.outcome();
  },
};

class NvdRun {
  state: NvdState = { watermark: null, full: null, window: null, fullRecords: null };
  private records = 0;
  private bytes = 0;
  private pages = 0;
  private readonly cfg;

  constructor(
    private readonly ctx: FetchContext,
    private readonly limiter: RateLimiter,
    private readonly apiKey: string | undefined,
    private readonly windowMs: number,
  ) {
    this.cfg = ctx.config.sources.nvd;
  }

  private async save(): Promise<void> {
    await writeJsonAtomic(join(this.ctx.dir, STATE_FILE), this.state);
  }

  async execute(): Promise<void> {
    this.state = await loadNvdState(this.ctx.dir, this.ctx.log);
    const startNew = () => ({ startedAt: this.ctx.now().toISOString(), nextIndex: 0, totalResults: null });
    if (!this.state.full && (this.ctx.full || !this.state.watermark)) {
      this.state.full = startNew();
      await rm(join(this.ctx.dir, PARTIAL_DIR), { recursive: true, force: true });
      await this.save();
    }
    if (this.state.full) await this.fullPull();
    await this.incremental();
  }

  outcome(): SourceOutcome {
    return {
      records: this.records,
      bytes: this.bytes,
      watermark: this.state.watermark,
      unchanged: this.records === 0,
      detail: `${this.pages} page${this.pages === 1 ? '' : 's'}, ${formatCount(this.records)} CVE records`,
    };
  }

  private async getPage(params: Record<string, string>, startIndex: number, what: string): Promise<Page> {
    const url = new URL(this.cfg.url);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    url.searchParams.set('resultsPerPage', String(this.cfg.pageSize));
    url.searchParams.set('startIndex', String(startIndex));
    // An HTML error page, cut JSON, an empty body or an empty page before the end answered 200
    // is asked for again (retried like a network failure); valid JSON of the wrong shape is not
    // (checkEnvelope).
    const { res, value } = await this.ctx.http.getParsed(
      url.toString(),
      {
        limiter: this.limiter,
        retryOn: [...RETRY_STATUSES, 403],
        // A 403 or a 429 says the window's budget is spent (another client on the address or
        // key, or the run just before this one): retried sooner, it is refused again. NVD sends
        // both, with `Retry-After: 0` (aquasecurity/vuln-list-update#396).
        minRetryWaitMs: { 403: this.windowMs, 429: this.windowMs },
        headers: { accept: 'application/json', ...(this.apiKey ? { apiKey: this.apiKey } : {}) },
        signal: this.ctx.signal,
      },
      (got) => {
        // Not retried, so not wrapped by the client: the message names the URL itself.
        const envelope = checkEnvelope(parseJsonOrRetry(got, what), startIndex, `${what} from ${got.url}`);
        // NVD answers the odd page with no records though its totalResults says more follow
        // (aquasecurity/vuln-list-update#328 saw whole windows come back empty, then whole
        // again): the same request a moment later has them.
        if (envelope.count === 0 && startIndex < envelope.totalResults) {
          throw new UnusableBodyError(`${what}: empty page before the end (totalResults ${envelope.totalResults})`);
        }
        return envelope;
      },
    );
    const raw = res.body;
    const { count, totalResults } = value;
    this.bytes += raw.length;
    this.pages++;
    return { raw, count, totalResults };
  }

  private async writePage(file: string, page: Page): Promise<void> {
    // Pages are kept as NVD sent them, gzipped (a full pull is ~2 GB of JSON, ~200 MB gzipped).
    await writeFileAtomic(file, gzipSync(page.raw));
    this.records += page.count;
  }

  /**
   * Reads the pages of one query from `cursor` on, saving the cursor after each page.
   *
   * NVD pages by offset into a result set that can change while it is read. A record modified
   * while a lastMod window is paged gets a lastModified after the window's end and leaves the
   * window; every later record moves up one offset, so the next page would start one record too
   * far and skip a record changed inside the window (lost for good: the watermark then moves past
   * it). A totalResults smaller than the previous page said is the sign. The records that left
   * may all have been before this page, so the reader steps back by the shrink and reads on from
   * there, dropping this page (the pages from the new offset hold it again). Records read twice
   * are harmless: the build keeps one version per CVE, the latest lastModified. Pages read after a
   * step back are named `-r<n>`, so none overwrites an earlier page whose records now sit at
   * other offsets. A total that grows (new CVEs, appended) only repeats records, never skips one.
   * (A shrink and a growth of the same size between two pages cannot be told apart; NVD offers
   * nothing better than offsets.)
   */
  private async readPages(
    cursor: Cursor,
    params: Record<string, string>,
    what: (startIndex: number) => string,
    fileFor: (startIndex: number, reread: string) => string,
    onPage?: (page: Page) => void,
  ): Promise<void> {
    while (cursor.totalResults === null || cursor.nextIndex < cursor.totalResults) {
      const start = cursor.nextIndex;
      const page = await this.getPage(params, start, what(start));
      const before = cursor.totalResults;
      cursor.totalResults = page.totalResults;
      const shrink = before === null ? 0 : before - page.totalResults;
      if (shrink > 0 && start > 0) {
        cursor.nextIndex = Math.max(0, start - shrink);
        cursor.rereads = (cursor.rereads ?? 0) + 1;
        this.ctx.log(`  ${what(start)}: totalResults went from ${before} to ${page.totalResults} while paging; reading again from startIndex ${cursor.nextIndex}`);
        await this.save();
        continue;
      }
      if (page.count > 0) await this.writePage(fileFor(start, cursor.rereads ? `-r${cursor.rereads}` : ''), page);
      cursor.nextIndex += page.count;
      onPage?.(page);
      await this.save();
      if (page.count === 0) break;
    }
  }

  private async fullPull(): Promise<void> {
    const partial = join(this.ctx.dir, PARTIAL_DIR);
    const full = this.state.full!;
    const bar = progress('nvd full pull', full.totalResults ?? 0, 'CVEs');
    bar.tick(full.nextIndex);
    try {
      await this.readPages(
        full,
        {},
        (start) => `NVD page startIndex=${start}`,
        (start, reread) => join(partial, `page-${pad(start)}${reread}.json.gz`),
        (page) => {
          bar.setTotal(page.totalResults);
          bar.tick(page.count);
        },
      );
    } finally {
      bar.stop();
    }
    const pulled = full.totalResults ?? 0;
    const inPlace = this.state.fullRecords;
    const shrunk = inPlace !== null && pulled * 2 < inPlace && existsSync(join(this.ctx.dir, 'full'));
    if (shrunk || pulled === 0) {
      // NVD has answered whole queries with no records (aquasecurity/vuln-list-update#328). Swapped
      // in, such a pull replaced the full set (and dropped the deltas) with next to nothing, and
      // the watermark moved past all that was lost. The pull is dropped; the increments go on
      // from the watermark in place. A pull with no record at all is never NVD's whole set: on a
      // first run it was taken, the watermark set to its start, and every CVE older than that
      // was never asked for again (the next run asked only for changes).
      this.state.full = null;
      await rm(join(this.ctx.dir, PARTIAL_DIR), { recursive: true, force: true });
      await this.save();
      const from = `NVD full pull from ${this.ctx.http.rewrite(this.cfg.url)}: totalResults ${pulled}`;
      throw new FetchError(
        shrunk
          ? `${from}, fewer than half of the ${inPlace} CVE records in nvd/full/; refused, the set in place is kept (\`vulnintel fetch --sources nvd --full\` pulls again)`
          : `${from}, no CVE record at all; refused${this.state.watermark ? ', the set in place is kept (`vulnintel fetch --sources nvd --full` pulls again)' : ', the next run pulls again'}`,
      );
    }
    await this.swapInFull();
    this.state.watermark = full.startedAt;
    this.state.full = null;
    this.state.window = null;
    this.state.fullRecords = pulled;
    await this.save();
  }

  /** Replaces `full/` by the completed pull and drops the deltas it supersedes. */
  private async swapInFull(): Promise<void> {
    const dir = this.ctx.dir;
    const partial = join(dir, PARTIAL_DIR);
    // No partial folder beside a full/ one: a crash (kill -9, power loss) came after the rename
    // below and before the state was saved, so full/ is this pull already. Swapping again put an
    // empty folder in its place: the whole set gone, and the watermark moved past it.
    if (existsSync(partial) || !existsSync(join(dir, 'full'))) {
      await mkdir(partial, { recursive: true });
      await rm(join(dir, OLD_DIR), { recursive: true, force: true });
      await rename(join(dir, 'full'), join(dir, OLD_DIR)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
      await rename(partial, join(dir, 'full'));
    }
    await rm(join(dir, OLD_DIR), { recursive: true, force: true });
    await rm(join(dir, 'delta'), { recursive: true, force: true });
  }

  private async incremental(): Promise<void> {
    const until = this.ctx.now();
    for (;;) {
      if (!this.state.window) {
        const watermark = new Date(this.state.watermark!);
        if (watermark.getTime() >= until.getTime()) return;
        const start = new Date(Math.max(0, watermark.getTime() - this.cfg.overlapMinutes * 60_000));
        const end = new Date(Math.min(start.getTime() + this.cfg.windowDays * DAY_MS, until.getTime()));
        this.state.window = { start: nvdDate(start), end: nvdDate(end), nextIndex: 0, totalResults: null };
        await this.save();
      }
      const w = this.state.window;
      await this.readPages(
        w,
        { lastModStartDate: w.start, lastModEndDate: w.end },
        (start) => `NVD changes ${w.start}..${w.end} startIndex=${start}`,
        (start, reread) => join(this.ctx.dir, 'delta', `${compact(w.end)}-${pad(start)}${reread}.json.gz`),
      );
      // NVD has answered whole windows with no record (totalResults 0) that held hundreds of
      // changes, and the same query later had them all (aquasecurity/vuln-list-update#328).
      // Taken at its word, the watermark moved past those changes and they were never asked
      // for again. The newest window, answered empty, leaves the watermark where it was: the
      // next run asks from there again, a longer window (a quiet stretch costs lag, not data).
      // An empty window before the newest one is moved past, or a run could never get beyond it.
      if (w.totalResults === 0 && Date.parse(w.end) >= until.getTime()) {
        this.ctx.log(`  NVD changes ${w.start}..${w.end}: no record; the watermark stays at ${this.state.watermark}, the next run asks again from there`);
        this.state.window = null;
        await this.save();
        return;
      }
      this.state.watermark = new Date(w.end).toISOString();
      this.state.window = null;
      await this.save();
    }
  }
}
