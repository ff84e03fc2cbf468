/**
 * The dashboard receives a live update: a real `vulnintel serve` of a first build, the
 * dashboard open in Chromium, then a second build with known differences is published into
 * the same data folder; the server swaps snapshots, the stream pushes that build's changes,
 * and the open page shows them without a reload.
 */
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
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
    await expect.poll(() => page.locator('body').getAttribute('data-live'), { timeout: 15_000 }).toBe('open');

    // A third build arrives while the page shows the second: the "Last build" tiles become the
    // third's (its id, time and counts; they added its changes to the second's counts, under the
    // second's id) and "Last 7 days" counts it too (it stayed as it was) — as a reload shows them.
    const kevPath = join(rawDir, 'kev', 'known_exploited_vulnerabilities.json');
    const catalog = JSON.parse(await readFile(kevPath, 'utf8')) as { vulnerabilities: Record<string, unknown>[]; count: number; catalogVersion: string };
    catalog.catalogVersion = '2026.11.24';
    catalog.vulnerabilities.unshift({ ...catalog.vulnerabilities[0], cveID: 'CVE-2026-90141', dateAdded: '2026-11-24', dueDate: '2026-12-15' });
    catalog.count = catalog.vulnerabilities.length;
    await writeFile(kevPath, JSON.stringify(catalog, null, 4));
    const third = await build();
    await expect.poll(() => api.server.store.current?.buildId, { timeout: 60_000 }).toBe(third);
    await expect.poll(() => page.locator('#last-build-id').textContent(), { timeout: 30_000 }).toBe(third);
    interface Tiles { id: string; at: string; build: Record<string, string>; buildTotal: string; week: Record<string, string>; weekTotal: string }
    const tiles = (p: typeof page) =>
      p.evaluate<Tiles>(`(() => {
        const read = (id) => Object.fromEntries([...document.querySelectorAll('#' + id + ' [data-kind]')].map((n) => [n.getAttribute('data-kind'), n.textContent.trim()]).filter(([, n]) => n !== '0'));
        return { id: document.getElementById('last-build-id').textContent, at: document.getElementById('last-build-at').textContent,
          build: read('counts-last-build'), buildTotal: document.getElementById('last-build-total').textContent.trim(),
          week: read('counts-last-week'), weekTotal: document.getElementById('last-week-total').textContent.trim() };
      })()`);
    const fresh = await browser.newPage();
    // (a query of its own: the browser's cache holds /pulse as the second build served it)
    await fresh.goto(`${api.base}/pulse?after=${third}`);
    const expectedTiles = await tiles(fresh);
    expect(expectedTiles.id).toBe(third);
    expect(Number(expectedTiles.buildTotal)).toBeGreaterThan(0);
    await expect.poll(() => tiles(page), { timeout: 30_000 }).toEqual(expectedTiles);
    await screenshot(page, 'dashboard-live-third-build');
    await fresh.close();
    await page.close();
  }, 240_000);
});
