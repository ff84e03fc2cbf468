/**
 * What pulse.js writes into the dashboard's live list, in real Chromium: the dashboard rendered
 * by its component with the served assets, and a stream answered by the test with one change
 * whose why quotes a title holding bidirectional controls (upstream text: a vendor advisory's
 * title). The page shows it as the server renders text, those controls dropped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { ASSETS } from '../../api/pulse/assets.ts';
import { documentOf } from '../../api/pulse/page-response.ts';
import { kindLabel } from '../../api/pulse/format.ts';
import { DashboardPage, type DashboardData } from '../../api/pulse/pages/dashboard.tsx';
import { launchChromium, type RealBrowser } from './browser.ts';

const ORIGIN = 'http://pulse.test';
const WHY = 'New cisco advisory cisco-sa-evil-Zz9 (HIGH), no CVE assigned yet: Invoice \u202eexe.pdf\u202c for \u2067admins\u2069.';

/** A dashboard of one build with no change history: the live list starts empty. */
const EMPTY_DASHBOARD: DashboardData = {
  buildId: 'build-1',
  builtAt: '2026-11-24T06:00:00.000Z',
  cves: { active: 1, rejected: 0 },
  changes: null,
  kev: { as_of: null, days: null, window_start: null, total: 0, limit: 10, offset: 0, cves: [] },
  weeks: [],
};

let browser: RealBrowser;

beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

/**
 * The dashboard (its HTML as the server renders it, its assets) in Chromium, its change stream
 * answering `change`; resolves once the live list shows it, with that list item.
 */
async function dashboardReceiving(change: { change_id: string } & Record<string, unknown>): Promise<{ page: Page; item: Locator }> {
  const html = await documentOf(DashboardPage({ data: EMPTY_DASHBOARD }));
  const page = await browser.newPage();
  await page.route(`${ORIGIN}/**`, (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === '/pulse/stream') return route.fulfill({ body: `id: ${change.change_id}\ndata: ${JSON.stringify(change)}\n\n`, contentType: 'text/event-stream' });
    const asset = Object.entries(ASSETS).find(([name]) => path === `/pulse/assets/${name}`)?.[1];
    return asset ? route.fulfill({ body: asset.body, contentType: asset.contentType }) : route.fulfill({ body: html, contentType: 'text/html; charset=utf-8' });
  });
  await page.goto(`${ORIGIN}/pulse`);
  const item = page.locator(`#live-list li[data-change-id="${change.change_id}"]`).first();
  await expect.poll(() => item.count(), { timeout: 15_000 }).toBeGreaterThan(0);
  return { page, item };
}

describe('the live list', () => {
  it('drops the bidirectional controls of a change\'s why, as the pages do (it showed the title reordered: "Invoice fdp.exe")', async () => {
    const { page, item } = await dashboardReceiving({ change_id: 'a'.repeat(24), build_id: 'build-2', detected_at: '2026-11-25T06:00:00.000Z', subject_type: 'advisory', kind: 'new_advisory', vendor: 'cisco', advisory_id: 'cisco-sa-evil-Zz9', cve_id: null, why: WHY });
    expect(await item.locator('p').textContent()).toBe('New cisco advisory cisco-sa-evil-Zz9 (HIGH), no CVE assigned yet: Invoice exe.pdf for admins.');
    await page.close();
  });

  it('writes a change\'s kind as the server does, its acronyms in capitals ("KEV added"; it read "kev added")', async () => {
    const { page, item } = await dashboardReceiving({ change_id: 'b'.repeat(24), build_id: 'build-2', detected_at: '2026-11-25T06:00:00.000Z', subject_type: 'cve', kind: 'kev_added', cve_id: 'CVE-2026-0001', why: 'Added to CISA KEV.' });
    expect(await item.locator('.badge').textContent()).toBe(kindLabel('kev_added'));
    expect(kindLabel('kev_added')).toBe('KEV added');
    await page.close();
  });
});
