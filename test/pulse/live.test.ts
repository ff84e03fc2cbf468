/**
 * The dashboard receives a live update: a real `vulnintel serve` of a first build, the
 * dashboard open in Chromium, then a second build with known differences is published into
 * the same data folder; the server swaps snapshots, the stream pushes that build's changes,
 * and the open page shows them without a reload.
 */
import { cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../cli/build/build.ts';
import { resolveBuildOptions } from '../../cli/commands/build.ts';
import { evolveSampleRaw } from '../helpers/changes-corpus.ts';
import { SAMPLE_RAW } from '../helpers/sample-snapshot.ts';
import { startOn, type SampleServer } from '../api/server-harness.ts';
import { launchChromium, screenshot, type RealBrowser } from './browser.ts';

let rawDir: string;
let dataDir: string;
let api: SampleServer;
let browser: RealBrowser;

async function build(): Promise<string> {
  process.env.VULNINTEL_QUIET = '1';
  return (await buildSnapshot(await resolveBuildOptions({ raw: rawDir, data: dataDir, keep: 3 }))).buildId;
}

beforeAll(async () => {
  rawDir = await mkdtemp(join(tmpdir(), 'vulnintel-live-raw-'));
  dataDir = await mkdtemp(join(tmpdir(), 'vulnintel-live-data-'));
  await cp(SAMPLE_RAW, rawDir, { recursive: true });
  const first = await build();
  api = await startOn(dataDir, first);
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await api?.server.close();
});

describe('the dashboard, live', () => {
  it('shows the changes of a newly published build without a reload', async () => {
    const page = await browser.newPage();
    await page.goto(`${api.base}/pulse`);
    // The first build has no history: the page says so, and the stream is open.
    expect(await page.locator('#changes-h + p').textContent()).toContain('no change history');
    await expect.poll(() => page.locator('body').getAttribute('data-live'), { timeout: 15_000 }).toBe('open');
    // The subscribe page's preview says the same (it said "Nothing matched since …", as if the
    // filter were too narrow).
    const preview = await (await api.get('/pulse/subscribe?vendor=cisco')).text();
    expect(preview).toContain('no change history yet');
    expect(preview).not.toContain('Nothing matched since');

    await evolveSampleRaw(rawDir);
    const second = await build();
    await expect.poll(() => api.server.store.current?.buildId, { timeout: 60_000 }).toBe(second);

    const expected = (await api.json<{ changes: { change_id: string; cve_id: string | null; kind: string }[] }>('/api/v1/public/changes?limit=200')).body.changes;
    expect(expected.length).toBeGreaterThan(0);
    await expect.poll(() => page.locator('#live-list > li').count(), { timeout: 30_000 }).toBe(expected.length);
    const shown = await page.locator('#live-list > li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-change-id')));
    expect(new Set(shown)).toEqual(new Set(expected.map((c) => c.change_id)));
    expect(await page.locator('#live-status').textContent()).toContain(`${expected.length} changes received`);
    // A KEV addition is among them, linking to its CVE page.
    const kev = expected.find((c) => c.kind === 'kev_added')!;
    expect(await page.locator(`#live-list > li[data-change-id="${kev.change_id}"] a`).getAttribute('href')).toBe(`/pulse/cves/${kev.cve_id}`);
    await screenshot(page, 'dashboard-live');

    // Reloaded, the page shows the new build's counts from the snapshot itself.
    await page.reload();
    expect(await page.locator('#counts-last-build [data-kind="kev_added"]').textContent()).toBe('1');
    await page.close();
  }, 240_000);
});
