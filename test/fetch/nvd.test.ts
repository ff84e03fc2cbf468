import { existsSync } from 'node:fs';
import { readFile, readdir, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clientRateWindowMs, loadNvdState } from '../../cli/fetch/sources/nvd.ts';
import { fetchSources } from '../../cli/fetch/run.ts';
import { readSourceStatuses } from '../../cli/fetch/status.ts';
import { fixture, routes, startServer, tempRaw, testConfig, testHttp, type Reply, type TestServer } from './helpers.ts';

const IDS = ['CVE-1999-0001', 'CVE-2023-4966', 'CVE-2024-3400', 'CVE-2025-39800', 'CVE-2026-7210'];
const NOW = new Date('2026-10-01T12:00:00.000Z');

async function records(): Promise<unknown[]> {
  return Promise.all(IDS.map(async (id) => JSON.parse((await fixture(`nvd/${id}.json`)).toString('utf8'))));
}

/** An NVD API 2.0 response page over `all`, as the API shapes it. */
function page(all: unknown[], startIndex: number, size: number): Reply {
  const slice = all.slice(startIndex, startIndex + size);
  return {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      resultsPerPage: slice.length,
      startIndex,
      totalResults: all.length,
      format: 'NVD_CVE',
      version: '2.0',
      timestamp: '2026-10-01T11:59:00.000',
      vulnerabilities: slice.map((cve) => ({ cve })),
    }),
  };
}

async function idsIn(dir: string): Promise<string[]> {
  const ids: string[] = [];
  for (const name of (await readdir(dir)).sort()) {
    const doc = JSON.parse(gunzipSync(await readFile(join(dir, name))).toString('utf8'));
    for (const v of doc.vulnerabilities) ids.push(v.cve.id);
  }
  return ids.sort();
}

describe('NVD fetcher', () => {
  let raw: string;
  let cleanup: () => Promise<void>;
  let server: TestServer | undefined;
  beforeEach(async () => ({ raw, cleanup } = await tempRaw()));
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await cleanup();
    delete process.env.NVD_API_KEY;
  });

  async function run(route: Parameters<typeof startServer>[0], extra: { signal?: AbortSignal; now?: Date; full?: boolean; nvd?: Record<string, unknown> } = {}) {
    server ??= await startServer(route);
    const config = await testConfig({ sources: { nvd: { url: `${server.base}/rest/json/cves/2.0`, pageSize: 2, ...extra.nvd } } });
    const t = testHttp();
    const results = await fetchSources({
      rawDir: raw,
      config,
      sources: ['nvd'],
      http: t.http,
      now: () => extra.now ?? NOW,
      full: extra.full ?? false,
      ...(extra.signal ? { signal: extra.signal } : {}),
    });
    return { result: results[0]!, sleeps: t.sleeps };
  }

  it('pulls every page of a full dump by startIndex and sets the watermark to the pull start', async () => {
    const all = await records();
    process.env.NVD_API_KEY = 'test-key-123';
    const { result } = await run(routes({ '/rest/json/cves/2.0': (u) => page(all, Number(u.searchParams.get('startIndex')), 2) }));
    expect(result.ok).toBe(true);
    expect(server!.requests.map((r) => r.query.get('startIndex'))).toEqual(['0', '2', '4']);
    expect(server!.requests.every((r) => r.query.get('resultsPerPage') === '2')).toBe(true);
    expect(server!.requests[0]!.headers.apikey).toBe('test-key-123');
    expect(server!.requests[0]!.headers['user-agent']).toMatch(/^vulnintel\//);
    // The first run is a full pull; the incremental window that follows it asks from the pull start.
    expect(await idsIn(join(raw, 'nvd', 'full'))).toEqual(IDS);
    const state = await loadNvdState(join(raw, 'nvd'));
    expect(state.full).toBeNull();
    expect(state.watermark).toBe(NOW.toISOString());
    const status = (await readSourceStatuses(raw)).nvd!;
    expect(status).toMatchObject({ ok: true, watermark: NOW.toISOString(), records: 5, error: null });
  });

  it('a damaged state file is named and the source starts over with a full pull (it started one without a word)', async () => {
    const dir = join(raw, 'nvd');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, '_state.json'), '{"watermark": "2026-09-30T00:00:00.000Z", "fu');
    const said: string[] = [];
    expect(await loadNvdState(dir, (line) => said.push(line))).toEqual({ watermark: null, full: null, window: null, fullRecords: null });
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(join(dir, '_state.json'));
    expect(said[0]).toContain('starting this source over');
    // A state that is JSON but no object is damaged too; a missing one is a first run, said nothing of.
    await writeFile(join(dir, '_state.json'), '[1]');
    expect((await loadNvdState(dir, (line) => said.push(line))).watermark).toBeNull();
    expect(said).toHaveLength(2);
    const fresh = join(raw, 'nothing-here');
    expect((await loadNvdState(fresh, (line) => said.push(line))).watermark).toBeNull();
    expect(said).toHaveLength(2);
    // The run itself: a full pull, as on a first run.
    const all = await records();
    await writeFile(join(dir, '_state.json'), '{not json');
    const { result } = await run(routes({ '/rest/json/cves/2.0': (u) => page(all, Number(u.searchParams.get('startIndex')), 2) }));
    expect(result.ok).toBe(true);
    expect(server!.requests.map((r) => r.query.get('startIndex'))).toEqual(['0', '2', '4']);
    expect((await loadNvdState(dir)).watermark).toBe(NOW.toISOString());
  });

  it('waits for Retry-After on a 429 and backoff on a 503, then succeeds', async () => {
    const all = await records();
    let calls = 0;
    const { result, sleeps } = await run(
      routes({
        '/rest/json/cves/2.0': (u) => {
          calls++;
          if (calls === 1) return { status: 429, headers: { 'retry-after': '7' }, body: 'Too Many Requests' };
          if (calls === 3) return { status: 503, body: 'Service Unavailable' };
          return page(all, Number(u.searchParams.get('startIndex')), 2);
        },
      }),
    );
    expect(result.ok).toBe(true);
    expect(sleeps[0]).toBe(7000);
    expect(sleeps.length).toBeGreaterThanOrEqual(2);
    expect(await idsIn(join(raw, 'nvd', 'full'))).toEqual(IDS);
  });

  it('retries 403 (NVD throttling) and reports a clear error once retries are spent, keeping the cursor', async () => {
    const all = await records();
    const { result } = await run(
      routes({
        '/rest/json/cves/2.0': (u) =>
          u.searchParams.get('startIndex') === '2' ? { status: 403, body: 'Forbidden' } : page(all, Number(u.searchParams.get('startIndex')), 2),
      }),
    );
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/HTTP 403.*after 4 attempts/);
    expect(server!.requests.filter((r) => r.query.get('startIndex') === '2')).toHaveLength(4);
    const state = await loadNvdState(join(raw, 'nvd'));
    expect(state.full?.nextIndex).toBe(2);
    // Nothing half-done is exposed to the build: the partial pull is under a `_` name.
    expect(existsSync(join(raw, 'nvd', 'full'))).toBe(false);
  });

  // A 403 says the rolling window's budget is spent: by another client on the same address or
  // key, or by the run just before (a poll right after the nightly update). Retried after 2, 4
  // and 8 s, all four attempts fell inside NVD's 30 s window and the source failed.
  it('retries a 403 only once a whole rate window (with its margin) has passed', async () => {
    const all = await records();
    let refused = 0;
    const { result, sleeps } = await run(
      routes({
        '/rest/json/cves/2.0': (u) => (refused++ < 2 ? { status: 403, headers: { message: 'Request forbidden by administrative rules.' } } : page(all, Number(u.searchParams.get('startIndex')), 2)),
      }),
      // Only the retry waits are injected (testHttp); the limiter itself is not reached by 3 pages.
      { nvd: { rateWindowSeconds: 30 } },
    );
    expect(result.ok).toBe(true);
    expect(sleeps).toEqual([clientRateWindowMs(30), clientRateWindowMs(30)]);
    expect(clientRateWindowMs(30)).toBe(31_000);
  });

  // NVD's 429 carries `Retry-After: 0`: taken at its word, the three retries went out within
  // milliseconds, inside the same spent window, and the source failed.
  it('retries a 429 with Retry-After: 0 once a whole rate window has passed, like a 403', async () => {
    const all = await records();
    let refused = 0;
    const { result, sleeps } = await run(
      routes({
        '/rest/json/cves/2.0': (u) => (refused++ < 1 ? { status: 429, headers: { 'retry-after': '0' } } : page(all, Number(u.searchParams.get('startIndex')), 2)),
      }),
      { nvd: { rateWindowSeconds: 30 } },
    );
    expect(result.ok).toBe(true);
    expect(sleeps).toEqual([clientRateWindowMs(30)]);
  });

  it('resumes a killed full pull from the saved cursor and ends with the complete set', async () => {
    const all = await records();
    const controller = new AbortController();
    let killed = false;
    const route = routes({
      '/rest/json/cves/2.0': (u) => {
        const start = Number(u.searchParams.get('startIndex'));
        if (start === 4 && !killed) {
          killed = true;
          controller.abort(); // SIGTERM arrives while page 3 is in flight
        }
        return page(all, start, 2);
      },
    });
    const first = await run(route, { signal: controller.signal });
    expect(first.result.aborted).toBe(true);
    expect((await loadNvdState(join(raw, 'nvd'))).full?.nextIndex).toBe(4);

    server!.requests.length = 0;
    const second = await run(route);
    expect(second.result.ok).toBe(true);
    expect(server!.requests[0]!.query.get('startIndex')).toBe('4');
    expect(server!.requests.some((r) => r.query.get('startIndex') === '0' && !r.query.has('lastModStartDate'))).toBe(false);
    expect(await idsIn(join(raw, 'nvd', 'full'))).toEqual(IDS);
  });

  it('walks 120-day lastMod windows from the watermark, with overlap, into nvd/delta', async () => {
    const all = await records();
    const dir = join(raw, 'nvd');
    await mkdir(dir, { recursive: true });
    const watermark = new Date(NOW.getTime() - 200 * 86_400_000).toISOString();
    await writeFile(join(dir, '_state.json'), JSON.stringify({ watermark, full: null, window: null }));
    const windows: Array<[string, string]> = [];
    const { result } = await run(
      routes({
        '/rest/json/cves/2.0': (u) => {
          const start = u.searchParams.get('lastModStartDate')!;
          const end = u.searchParams.get('lastModEndDate')!;
          if (!windows.some(([s]) => s === start)) windows.push([start, end]);
          // Two changes in the first window, one in the second.
          const inWindow = windows.length === 1 ? all.slice(0, 2) : all.slice(2, 3);
          return page(inWindow, Number(u.searchParams.get('startIndex')), 2);
        },
      }),
    );
    expect(result.ok).toBe(true);
    expect(windows).toHaveLength(2);
    const day = 86_400_000;
    const [w1, w2] = windows.map(([s, e]) => [Date.parse(s), Date.parse(e)] as const);
    expect(w1![0]).toBe(Date.parse(watermark) - 15 * 60_000);
    expect(w1![1] - w1![0]).toBe(120 * day);
    expect(w2![0]).toBe(w1![1] - 15 * 60_000);
    expect(w2![1]).toBe(NOW.getTime());
    expect(windows[0]![0]).toMatch(/\+00:00$/);
    expect(await idsIn(join(dir, 'delta'))).toEqual(IDS.slice(0, 3).sort());
    expect((await loadNvdState(dir)).watermark).toBe(NOW.toISOString());
  });

  // aquasecurity/vuln-list-update#328: NVD answered a 6-hour window with `totalResults: 0` and no
  // record; the same query later held 208 changes. The watermark moved past them: lost for good.
  it('a newest window answered with no record leaves the watermark in place; the next run asks from there again', async () => {
    const all = await records();
    const dir = join(raw, 'nvd');
    await mkdir(dir, { recursive: true });
    const watermark = new Date(NOW.getTime() - 6 * 3_600_000).toISOString();
    await writeFile(join(dir, '_state.json'), JSON.stringify({ watermark, full: null, window: null }));
    let empty = true;
    const route = routes({
      '/rest/json/cves/2.0': (u) => (empty ? page([], 0, 2) : page(all.slice(0, 2), Number(u.searchParams.get('startIndex')), 2)),
    });
    const first = await run(route);
    expect(first.result.ok).toBe(true);
    expect((await loadNvdState(dir)).watermark).toBe(watermark);
    expect((await loadNvdState(dir)).window).toBeNull();

    // Two hours later NVD answers the same changes.
    empty = false;
    const later = new Date(NOW.getTime() + 2 * 3_600_000);
    const second = await run(route, { now: later });
    expect(second.result.ok).toBe(true);
    const asked = server!.requests.at(-1)!.query;
    expect(Date.parse(asked.get('lastModStartDate')!)).toBe(Date.parse(watermark) - 15 * 60_000);
    expect(Date.parse(asked.get('lastModEndDate')!)).toBe(later.getTime());
    expect(await idsIn(join(dir, 'delta'))).toEqual(IDS.slice(0, 2));
    expect((await loadNvdState(dir)).watermark).toBe(later.toISOString());
  });

  it('an empty window before the newest one is moved past, so a run can always catch up', async () => {
    const all = await records();
    const dir = join(raw, 'nvd');
    await mkdir(dir, { recursive: true });
    const watermark = new Date(NOW.getTime() - 200 * 86_400_000).toISOString();
    await writeFile(join(dir, '_state.json'), JSON.stringify({ watermark, full: null, window: null }));
    let windows = 0;
    let seen = '';
    const { result } = await run(
      routes({
        '/rest/json/cves/2.0': (u) => {
          const start = u.searchParams.get('lastModStartDate')!;
          if (start !== seen) (seen = start), windows++;
          return windows === 1 ? page([], 0, 2) : page(all.slice(0, 1), 0, 2);
        },
      }),
    );
    expect(result.ok).toBe(true);
    expect(windows).toBe(2);
    expect((await loadNvdState(dir)).watermark).toBe(NOW.toISOString());
  });

  // NVD pages by offset into a result set that can change under the reader: a record modified
  // while a lastMod window is paged gets a lastModified after the window's end and leaves it,
  // so every later record moves up by one (what the replay of the live API showed).
  it('steps back when totalResults shrinks between pages of a window, so no record is skipped', async () => {
    const all = await records();
    const dir = join(raw, 'nvd');
    await mkdir(dir, { recursive: true });
    const watermark = new Date(NOW.getTime() - 86_400_000).toISOString();
    await writeFile(join(dir, '_state.json'), JSON.stringify({ watermark, full: null, window: null }));
    let inWindow = all.slice();
    const { result } = await run(
      routes({
        '/rest/json/cves/2.0': (u) => {
          const start = Number(u.searchParams.get('startIndex'));
          const reply = page(inWindow, start, 2);
          // The first record is modified right after page 1 is served: it leaves the window.
          if (start === 0) inWindow = all.slice(1);
          return reply;
        },
      }),
    );
    expect(result.ok).toBe(true);
    // Page 2 (startIndex 2) said 4 results instead of 5: read again from startIndex 1.
    expect(server!.requests.map((r) => r.query.get('startIndex'))).toEqual(['0', '2', '1', '3']);
    expect([...new Set(await idsIn(join(dir, 'delta')))]).toEqual(IDS);
    expect((await loadNvdState(dir)).watermark).toBe(NOW.toISOString());
  });

  it('steps back when totalResults shrinks during a full pull, without overwriting a page already written', async () => {
    const all = await records();
    let served = all.slice();
    const { result } = await run(
      routes({
        '/rest/json/cves/2.0': (u) => {
          const start = Number(u.searchParams.get('startIndex'));
          const reply = page(served, start, 2);
          if (start === 2 && served.length === all.length) served = all.slice(2); // two records before the cursor go
          return reply;
        },
      }),
    );
    expect(result.ok).toBe(true);
    // startIndex 4 saw 3 results instead of 5: read again from 2 (= 4 − 2), under new page names.
    expect(server!.requests.map((r) => r.query.get('startIndex'))).toEqual(['0', '2', '4', '2']);
    expect([...new Set(await idsIn(join(raw, 'nvd', 'full')))]).toEqual(IDS);
    expect((await readdir(join(raw, 'nvd', 'full'))).sort()).toEqual(['page-0000000.json.gz', 'page-0000002-r1.json.gz', 'page-0000002.json.gz']);
  });

  // What NVD's front end answers when the API behind it is overloaded: a 200 that is no page.
  it('asks again for a 200 whose body is an HTML error page, cut JSON or empty', async () => {
    const all = await records();
    const html = '<!DOCTYPE html><html><head><title>503 Service Unavailable</title></head><body><h1>Service Unavailable</h1></body></html>';
    const bad: Reply[] = [
      { headers: { 'content-type': 'text/html' }, body: html },
      { headers: { 'content-type': 'application/json' }, body: (page(all, 0, 2).body as string).slice(0, 200) },
      { headers: { 'content-type': 'application/json' }, body: '' },
    ];
    let n = 0;
    const { result, sleeps } = await run(routes({ '/rest/json/cves/2.0': (u) => bad[n++] ?? page(all, Number(u.searchParams.get('startIndex')), 2) }));
    expect(result.ok).toBe(true);
    expect(server!.requests.map((r) => r.query.get('startIndex'))).toEqual(['0', '0', '0', '0', '2', '4']);
    expect(sleeps).toHaveLength(3);
    expect(await idsIn(join(raw, 'nvd', 'full'))).toEqual(IDS);
  });

  it('asks again for a page that comes back empty though totalResults says more follow, and names it once retries are spent', async () => {
    const all = await records();
    const empty = (startIndex: number): Reply => ({
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resultsPerPage: 0, startIndex, totalResults: all.length, format: 'NVD_CVE', version: '2.0', timestamp: '2026-10-01T11:59:00.000', vulnerabilities: [] }),
    });
    let glitches = 1;
    const { result } = await run(
      routes({
        '/rest/json/cves/2.0': (u) => {
          const start = Number(u.searchParams.get('startIndex'));
          return start === 2 && glitches-- > 0 ? empty(start) : page(all, start, 2);
        },
      }),
    );
    expect(result.ok).toBe(true);
    expect(await idsIn(join(raw, 'nvd', 'full'))).toEqual(IDS);

    await server!.close();
    server = undefined;
    const again = await run(routes({ '/rest/json/cves/2.0': (u) => empty(Number(u.searchParams.get('startIndex'))) }), { full: true });
    expect(again.result.ok).toBe(false);
    expect(again.result.error).toMatch(/NVD page startIndex=0: empty page before the end \(totalResults 5\).*after 4 attempts/);
    // The complete set already in place stays.
    expect(await idsIn(join(raw, 'nvd', 'full'))).toEqual(IDS);
  });

  it('rejects malformed JSON with a clear message and leaves the previous raw pages untouched', async () => {
    const dir = join(raw, 'nvd');
    await mkdir(join(dir, 'full'), { recursive: true });
    const oldPage = gzipSync(Buffer.from(JSON.stringify({ totalResults: 0, vulnerabilities: [] })));
    await writeFile(join(dir, 'full', 'page-0000000.json.gz'), oldPage);
    const watermark = '2026-09-30T00:00:00.000Z';
    await writeFile(join(dir, '_state.json'), JSON.stringify({ watermark, full: null, window: null }));
    const { result } = await run(
      routes({ '/rest/json/cves/2.0': { headers: { 'content-type': 'application/json' }, body: '{"resultsPerPage":2,"vulnerabilities":[{"cve":' } }),
    );
    expect(result.ok).toBe(false);
    // Asked again like a network failure, then the clear error once the retries are spent.
    expect(result.error).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/rest\/json\/cves\/2\.0\?\S+: NVD changes \S+ startIndex=0: malformed JSON \(.*\) \(BODY_UNUSABLE\) after 4 attempts$/);
    expect(server!.requests).toHaveLength(4);
    expect(await readFile(join(dir, 'full', 'page-0000000.json.gz'))).toEqual(oldPage);
    expect(existsSync(join(dir, 'delta'))).toBe(false);
    expect((await loadNvdState(dir)).watermark).toBe(watermark);
    const status = (await readSourceStatuses(raw)).nvd!;
    expect(status.ok).toBe(false);
    expect(status.watermark).toBe(watermark);
    expect(status.error).toMatch(/malformed JSON/);
  });

  it('refuses valid JSON of the wrong shape at once, naming the page and its URL', async () => {
    const { result } = await run(
      routes({ '/rest/json/cves/2.0': { headers: { 'content-type': 'application/json' }, body: '{"message":"Unable to process the request"}' } }),
    );
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/^NVD page startIndex=0 from http:\/\/127\.0\.0\.1:\d+\/rest\/json\/cves\/2\.0\?resultsPerPage=2&startIndex=0: no vulnerabilities array$/);
    expect(server!.requests).toHaveLength(1);
  });

  // NVD has answered whole queries with no records. Swapped in, a re-pull answered so replaced
  // the full set with nothing, dropped the deltas, and moved the watermark past all of it.
  it('refuses a full re-pull with fewer than half the records of the set in place, keeping it, and goes on incrementally', async () => {
    const all = await records();
    expect((await run(routes({ '/rest/json/cves/2.0': (u) => page(all, Number(u.searchParams.get('startIndex')), 2) }))).result.ok).toBe(true);
    const dir = join(raw, 'nvd');
    const state = await loadNvdState(dir);
    expect(state.fullRecords).toBe(5);
    const kept = await idsIn(join(dir, 'full'));
    await server!.close();
    server = undefined;

    const later = new Date(NOW.getTime() + 86_400_000);
    const empty = routes({ '/rest/json/cves/2.0': (u) => page(u.searchParams.has('lastModStartDate') ? all.slice(0, 1) : [], Number(u.searchParams.get('startIndex')), 2) });
    const refused = await run(empty, { full: true, now: later });
    expect(refused.result.ok).toBe(false);
    expect(refused.result.error).toMatch(/^NVD full pull from http:\/\/127\.0\.0\.1:\d+\/rest\/json\/cves\/2\.0: totalResults 0, fewer than half of the 5 CVE records in nvd\/full\/; refused, the set in place is kept/);
    expect(await idsIn(join(dir, 'full'))).toEqual(kept);
    expect(existsSync(join(dir, '_full-partial'))).toBe(false);
    expect(await loadNvdState(dir)).toMatchObject({ watermark: state.watermark, full: null, fullRecords: 5 });

    // The next run goes on from the watermark in place.
    const next = await run(empty, { now: later });
    expect(next.result.ok).toBe(true);
    expect(await idsIn(join(dir, 'delta'))).toEqual([IDS[0]]);
    expect((await loadNvdState(dir)).watermark).toBe(later.toISOString());
  });

  // Taken, an empty first pull set the watermark to its start: every later run asked NVD only for
  // changes since, and the CVEs published before never came (the status said ok, 0 records).
  it('refuses a first full pull that holds no record at all, and pulls in full again next run', async () => {
    const all = await records();
    let answer: unknown[] = [];
    const route = routes({ '/rest/json/cves/2.0': (u) => page(answer, Number(u.searchParams.get('startIndex')), 2) });
    const refused = await run(route);
    expect(refused.result.ok).toBe(false);
    expect(refused.result.error).toMatch(/^NVD full pull from http:\/\/127\.0\.0\.1:\d+\/rest\/json\/cves\/2\.0: totalResults 0, no CVE record at all; refused, the next run pulls again$/);
    const dir = join(raw, 'nvd');
    expect(await loadNvdState(dir)).toMatchObject({ watermark: null, full: null, window: null });
    expect(existsSync(join(dir, 'full'))).toBe(false);
    expect(existsSync(join(dir, '_full-partial'))).toBe(false);

    answer = all;
    const next = await run(route);
    expect(next.result.ok).toBe(true);
    // A full pull again (no lastMod window), then the window from its start.
    expect(server!.requests.filter((r) => !r.query.has('lastModStartDate')).map((r) => r.query.get('startIndex'))).toEqual(['0', '0', '2', '4']);
    expect(await idsIn(join(dir, 'full'))).toEqual(IDS);
    expect((await loadNvdState(dir)).fullRecords).toBe(5);
  });

  // The swap renames full/ aside, _full-partial/ to full/, drops the old set and the deltas, then
  // saves the state. A crash before that save left the state saying "pull complete, swap it in"
  // with no partial folder: the next run swapped in an empty folder over the completed set.
  it('a run after a crash in the middle of swapping a completed pull in keeps the swapped-in set', async () => {
    const all = await records();
    const dir = join(raw, 'nvd');
    await mkdir(join(dir, 'full'), { recursive: true });
    for (const start of [0, 2, 4]) {
      const body = JSON.stringify(JSON.parse(page(all, start, 2).body as string));
      await writeFile(join(dir, 'full', `page-${String(start).padStart(7, '0')}.json.gz`), gzipSync(Buffer.from(body)));
    }
    // The old set renamed aside and the deltas it superseded, not yet dropped.
    await mkdir(join(dir, '_full-old'), { recursive: true });
    await writeFile(join(dir, '_full-old', 'page-0000000.json.gz'), gzipSync(Buffer.from(JSON.stringify(JSON.parse(page(all.slice(0, 1), 0, 1).body as string)))));
    await mkdir(join(dir, 'delta'), { recursive: true });
    await writeFile(join(dir, 'delta', '20260930T000000Z-0000000.json.gz'), gzipSync(Buffer.from(JSON.stringify(JSON.parse(page(all.slice(0, 1), 0, 1).body as string)))));
    const startedAt = '2026-10-01T11:00:00.000Z';
    await writeFile(
      join(dir, '_state.json'),
      JSON.stringify({ watermark: '2026-09-30T00:00:00.000Z', full: { startedAt, nextIndex: 5, totalResults: 5 }, window: null, fullRecords: 5 }),
    );
    const result = await run(routes({ '/rest/json/cves/2.0': (u) => page(all.slice(0, 1), Number(u.searchParams.get('startIndex')), 2) }));
    expect(result.result.ok).toBe(true);
    // No full-pull page asked again: only the window from the pull's start.
    expect(server!.requests.every((r) => r.query.has('lastModStartDate'))).toBe(true);
    expect(await idsIn(join(dir, 'full'))).toEqual(IDS);
    expect((await readdir(dir)).sort()).toEqual(['_state.json', 'delta', 'full']);
    expect(await loadNvdState(dir)).toMatchObject({ watermark: NOW.toISOString(), full: null, fullRecords: 5 });
  });

  it('--full re-pulls beside the served set: an interrupted re-pull keeps the old pages, a finished one replaces them', async () => {
    const all = await records();
    const dir = join(raw, 'nvd');
    await mkdir(join(dir, 'full'), { recursive: true });
    await mkdir(join(dir, 'delta'), { recursive: true });
    const old = gzipSync(Buffer.from(JSON.stringify(JSON.parse(page(all.slice(0, 1), 0, 1).body as string))));
    await writeFile(join(dir, 'full', 'page-0000000.json.gz'), old);
    await writeFile(join(dir, 'delta', '20260930T000000Z-0000000.json.gz'), old);
    await writeFile(join(dir, '_state.json'), JSON.stringify({ watermark: '2026-09-30T00:00:00.000Z', full: null, window: null }));
    const controller = new AbortController();
    const route = routes({
      '/rest/json/cves/2.0': (u) => {
        const start = Number(u.searchParams.get('startIndex'));
        if (start === 2 && !controller.signal.aborted) controller.abort();
        return page(all, start, 2);
      },
    });
    expect((await run(route, { full: true, signal: controller.signal })).result.aborted).toBe(true);
    expect(await readFile(join(dir, 'full', 'page-0000000.json.gz'))).toEqual(old);
    expect(existsSync(join(dir, 'delta'))).toBe(true);

    const second = await run(route);
    expect(second.result.ok).toBe(true);
    expect(await idsIn(join(dir, 'full'))).toEqual(IDS);
    expect(existsSync(join(dir, 'delta'))).toBe(false);
    expect((await readdir(dir)).sort()).toEqual(['_state.json', 'full']);
  });
});
