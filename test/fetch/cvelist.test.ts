import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { classifyAsset, planCvelist } from '../../cli/fetch/sources/cvelist.ts';
import { fetchSources } from '../../cli/fetch/run.ts';
import { readSourceStatuses } from '../../cli/fetch/status.ts';
import { fixture, startServer, tempRaw, testConfig, testHttp, type Reply, type TestServer } from './helpers.ts';

describe('cvelistV5 release assets', () => {
  let raw: string;
  let cleanup: () => Promise<void>;
  let server: TestServer;
  /** Asset name → body; the releases API lists them, newest release first. */
  let assets: Map<string, Buffer | Reply>;
  let inner: Buffer;
  beforeEach(async () => {
    ({ raw, cleanup } = await tempRaw());
    const cve = await fixture('cvelist/CVE-2024-1086.json');
    const rejected = await fixture('cvelist/CVE-2023-5129.rejected.json');
    inner = Buffer.from(zipSync({ 'cves/2024/1xxx/CVE-2024-1086.json': cve, 'cves/2023/5xxx/CVE-2023-5129.json': rejected }));
    const wrapped = (name: string) => Buffer.from(zipSync({ [name]: inner }));
    const delta = Buffer.from(zipSync({ 'deltaCves/CVE-2023-5129.json': rejected }));
    assets = new Map<string, Buffer | Reply>([
      ['2026-10-01_all_CVEs_at_midnight.zip.zip', wrapped('2026-10-01_all_CVEs_at_midnight.zip')],
      ['2026-10-01_delta_CVEs_at_1100Z.zip', delta],
      ['2026-10-01_delta_CVEs_at_1000Z.zip', delta],
      ['2026-09-30_all_CVEs_at_midnight.zip.zip', wrapped('2026-09-30_all_CVEs_at_midnight.zip')],
      ['2026-09-30_delta_CVEs_at_end_of_day.zip', delta],
    ]);
    server = await startServer((_req, url) => {
      if (url.pathname === '/repos/CVEProject/cvelistV5/releases') {
        // One release per asset pair is enough for the lookup; GitHub lists newest first.
        const list = [...assets.keys()].map((name, i) => ({
          tag_name: `t${i}`,
          assets: [{ name, browser_download_url: `${server.base}/download/${encodeURIComponent(name)}` }],
        }));
        return { headers: { 'content-type': 'application/json' }, body: JSON.stringify(list) };
      }
      const a = assets.get(decodeURIComponent(url.pathname.replace('/download/', '')));
      if (!a) return { status: 404 };
      return Buffer.isBuffer(a) ? { body: a } : a;
    });
  });
  afterEach(async () => {
    await server.close();
    await cleanup();
  });

  async function run() {
    const config = await testConfig({ sources: { cvelist: { releasesUrl: `${server.base}/repos/CVEProject/cvelistV5/releases` } } });
    const [result] = await fetchSources({ rawDir: raw, config, sources: ['cvelist'], http: testHttp().http });
    return result!;
  }

  const downloads = () => server.requests.filter((r) => r.path.startsWith('/download/')).map((r) => decodeURIComponent(r.path.slice(10)));

  it('stores the newest baseline unwrapped (zip, not zip-in-zip) and the latest delta of its day', async () => {
    const result = await run();
    expect(result.ok).toBe(true);
    expect(downloads().sort()).toEqual(['2026-10-01_all_CVEs_at_midnight.zip.zip', '2026-10-01_delta_CVEs_at_1100Z.zip']);
    const dir = join(raw, 'cvelist');
    expect((await readdir(dir)).filter((n) => !n.startsWith('_')).sort()).toEqual(['2026-10-01_all_CVEs_at_midnight.zip', '2026-10-01_delta_CVEs_at_1100Z.zip']);
    const baseline = await readFile(join(dir, '2026-10-01_all_CVEs_at_midnight.zip'));
    expect(baseline).toEqual(inner);
    expect(Object.keys(unzipSync(baseline))).toContain('cves/2024/1xxx/CVE-2024-1086.json');
    expect((await readSourceStatuses(raw)).cvelist).toMatchObject({ ok: true, records: 3, watermark: '2026-10-01T11:00:00.000Z' });
  });

  it('keeps a fresh baseline and adds only the new deltas; replaced deltas are removed after success', async () => {
    expect((await run()).ok).toBe(true);
    server.requests.length = 0;
    const delta = Buffer.from(zipSync({ 'deltaCves/CVE-2024-1086.json': await fixture('cvelist/CVE-2024-1086.json') }));
    assets = new Map([
      ['2026-10-02_delta_CVEs_at_0300Z.zip', delta],
      ['2026-10-02_all_CVEs_at_midnight.zip.zip', Buffer.from(zipSync({ 'x.zip': inner }))],
      ['2026-10-01_delta_CVEs_at_end_of_day.zip', delta],
      ...assets,
    ]);
    const result = await run();
    expect(result.ok).toBe(true);
    expect(downloads().sort()).toEqual(['2026-10-01_delta_CVEs_at_end_of_day.zip', '2026-10-02_delta_CVEs_at_0300Z.zip']);
    expect((await readdir(join(raw, 'cvelist'))).filter((n) => !n.startsWith('_')).sort()).toEqual([
      '2026-10-01_all_CVEs_at_midnight.zip',
      '2026-10-01_delta_CVEs_at_end_of_day.zip',
      '2026-10-02_delta_CVEs_at_0300Z.zip',
    ]);
  });

  it('a truncated delta fails clearly and leaves the previous set in place', async () => {
    expect((await run()).ok).toBe(true);
    const before = await readFile(join(raw, 'cvelist', '2026-10-01_delta_CVEs_at_1100Z.zip'));
    const full = Buffer.from(zipSync({ 'deltaCves/CVE-2024-1086.json': strToU8('{}'.repeat(200)) }));
    assets = new Map<string, Buffer | Reply>([['2026-10-01_delta_CVEs_at_1200Z.zip', full.subarray(0, full.length - 40)], ...assets]);
    const result = await run();
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/cvelist 2026-10-01_delta_CVEs_at_1200Z\.zip from .*: not a complete zip archive/);
    expect((await readdir(join(raw, 'cvelist'))).filter((n) => !n.startsWith('_')).sort()).toEqual(['2026-10-01_all_CVEs_at_midnight.zip', '2026-10-01_delta_CVEs_at_1100Z.zip']);
    expect(await readFile(join(raw, 'cvelist', '2026-10-01_delta_CVEs_at_1100Z.zip'))).toEqual(before);
  });

  it('a listing without any baseline asset fails naming the releases URL, the raw set left as it was', async () => {
    expect((await run()).ok).toBe(true);
    const before = (await readdir(join(raw, 'cvelist'))).sort();
    for (const name of [...assets.keys()]) if (name.includes('_all_CVEs_')) assets.delete(name);
    const result = await run();
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/^cvelistV5 releases from http:\/\/127\.0\.0\.1:\d+\/repos\/CVEProject\/cvelistV5\/releases list no baseline asset \(`\*_all_CVEs_at_midnight\.zip\.zip`\) among 3 recognised assets$/);
    expect((await readdir(join(raw, 'cvelist'))).sort()).toEqual(before);
  });

  it('takes a new baseline when the local one is too old or a day has no delta', () => {
    const f = (name: string) => ({ ...classifyAsset(name)!, url: `u/${name}` });
    const available = [
      f('2026-10-05_all_CVEs_at_midnight.zip.zip'),
      f('2026-10-05_delta_CVEs_at_0100Z.zip'),
      f('2026-10-04_delta_CVEs_at_end_of_day.zip'),
      f('2026-10-02_delta_CVEs_at_end_of_day.zip'),
    ];
    const local = [classifyAsset('2026-10-02_all_CVEs_at_midnight.zip')!];
    // 2026-10-03 has no delta in the listing: the chain from the local baseline is broken.
    expect(planCvelist(available, local, 7).baseline.date).toBe('2026-10-05');
    const complete = [...available, f('2026-10-03_delta_CVEs_at_end_of_day.zip')];
    const plan = planCvelist(complete, local, 7);
    expect(plan.baseline.date).toBe('2026-10-02');
    expect(plan.deltas.map((d) => d.localName)).toEqual([
      '2026-10-02_delta_CVEs_at_end_of_day.zip',
      '2026-10-03_delta_CVEs_at_end_of_day.zip',
      '2026-10-04_delta_CVEs_at_end_of_day.zip',
      '2026-10-05_delta_CVEs_at_0100Z.zip',
    ]);
    expect(planCvelist(complete, local, 2).baseline.date).toBe('2026-10-05');
  });

  // Each release's delta holds the day's changes up to its hour; only the end-of-day one holds
  // the whole day. The end-of-day release can be missing from the listing.
  it('takes a new baseline when a past day has only an hourly delta, not its end-of-day one', () => {
    const f = (name: string) => ({ ...classifyAsset(name)!, url: `u/${name}` });
    const local = [classifyAsset('2026-10-02_all_CVEs_at_midnight.zip')!];
    const available = [
      f('2026-10-05_all_CVEs_at_midnight.zip.zip'),
      f('2026-10-05_delta_CVEs_at_0100Z.zip'),
      f('2026-10-04_delta_CVEs_at_end_of_day.zip'),
      f('2026-10-03_delta_CVEs_at_2200Z.zip'),
      f('2026-10-02_delta_CVEs_at_end_of_day.zip'),
    ];
    // 2026-10-03's changes after 22:00 are in no delta listed: the 2026-10-05 baseline has them.
    const plan = planCvelist(available, local, 7);
    expect(plan.baseline.date).toBe('2026-10-05');
    expect(plan.deltas.map((d) => d.localName)).toEqual(['2026-10-05_delta_CVEs_at_0100Z.zip']);
    // With the end-of-day delta listed, the local baseline and its chain stay.
    const complete = planCvelist([...available, f('2026-10-03_delta_CVEs_at_end_of_day.zip')], local, 7);
    expect(complete.baseline.date).toBe('2026-10-02');
    expect(complete.deltas.map((d) => d.localName)).toContain('2026-10-03_delta_CVEs_at_end_of_day.zip');
  });
});
