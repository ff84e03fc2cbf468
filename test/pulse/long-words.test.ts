/**
 * Upstream prose with a word longer than any line (a 300-letter advisory title, a KEV product
 * name, a package's name, a change's why quoting a title) in a table of the /pulse pages, in
 * real Chromium: the page is rendered by its component with the served
 * stylesheet, so the test needs no corpus holding such a record.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASSETS } from '../../api/pulse/assets.ts';
import { documentOf } from '../../api/pulse/page-response.ts';
import { AdvisoryListPage } from '../../api/pulse/pages/advisories.tsx';
import { DashboardPage, type DashboardData } from '../../api/pulse/pages/dashboard.tsx';
import { AffectedPackages } from '../../api/pulse/components/affected-packages.tsx';
import { ChangeHistory } from '../../api/pulse/components/history.tsx';
import { Layout } from '../../api/pulse/layout.tsx';
import type { AdvisoryListView } from '../../api/pulse/load/advisories.ts';
import type { AdvisorySummary } from '../../api/queries/advisories.ts';
import type { KevEntry } from '../../api/queries/kev.ts';
import type { Page } from 'playwright-core';
import { launchChromium, screenshot, type RealBrowser } from './browser.ts';
import { change } from './changes-fixture.ts';

const ORIGIN = 'http://pulse.test';
const LONG_WORD = `A${'Supercalifragilisticexpialidocious'.repeat(9)}`;

function advisory(id: string, title: string): AdvisorySummary {
  return {
    vendor: 'cisco',
    advisory_id: id,
    api_path: `/api/v1/public/vendor-advisories/cisco/${id}`,
    title,
    published: '2026-11-24T16:00:00.000Z',
    modified: '2026-11-24T16:00:00.000Z',
    aggregate_severity: 'Medium',
    vendor_severity: 'MEDIUM',
    vendor_severity_source: 'cisco',
    vendor_severity_evidence: 'Medium',
    cvss_score: 5.3,
    has_cve: false,
    cve_ids: [],
    exploited: false,
    url: null,
  };
}

let browser: RealBrowser;

/** A page of `width` px showing `html` at `path`, with the served assets. */
async function pageOf(html: string, path: string, width: number): Promise<Page> {
  const page = await browser.newPage({ width });
  await page.route(`${ORIGIN}/**`, (route) => {
    const asked = new URL(route.request().url()).pathname;
    const asset = Object.entries(ASSETS).find(([name]) => asked === `/pulse/assets/${name}`)?.[1];
    return asset ? route.fulfill({ body: asset.body, contentType: asset.contentType }) : route.fulfill({ body: html, contentType: 'text/html; charset=utf-8' });
  });
  await page.goto(`${ORIGIN}${path}`);
  return page;
}

function kevEntry(cve: string, vendor: string, product: string): KevEntry {
  return {
    cve_id: cve,
    vendor_project: vendor,
    product,
    vulnerability_name: null,
    date_added: '2026-11-23',
    due_date: '2026-12-14',
    short_description: null,
    required_action: null,
    known_ransomware_campaign_use: 'Unknown',
    notes: null,
    cwes: [],
    service_score: 9.8,
    score_assessed: true,
    service_severity: 'CRITICAL',
    service_risk: 92.5,
  };
}

beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe('a word longer than a line in a table', () => {
  it('an advisory title breaks inside the list\'s column: the published, severity and CVE columns stay in sight on a desktop (they went off to the right)', async () => {
    const view: AdvisoryListView = {
      page: { advisories: [advisory('cisco-sa-long-Zz9', `Harmless ${LONG_WORD} name`), advisory('cisco-sa-short-Aa1', 'A short title')], total: 2, limit: 25, offset: 0 },
      vendors: ['cisco'],
      vendor: null,
      hasCve: null,
      next: null,
      prev: null,
      pastEnd: null,
      knownCves: new Set(),
    };
    const html = await documentOf(AdvisoryListPage({ view, buildId: 'test-build' }));
    for (const width of [1280, 390]) {
      const page = await pageOf(html, '/pulse/advisories', width);
      const wrap = page.locator('#advisories').locator('xpath=..');
      const scroll = (await wrap.evaluate((el) => [el.scrollWidth, el.clientWidth])) as [number, number];
      expect(scroll[0], `the table's scroll width at ${width} px`).toBeLessThanOrEqual(scroll[1]);
      // Every row's published date is drawn inside the window.
      for (const cell of await page.locator('#advisories td.date').all()) {
        const box = (await cell.boundingBox())!;
        expect(box.x + box.width, `a published date at ${width} px`).toBeLessThanOrEqual(width);
      }
      await screenshot(page, `advisories-long-title${width < 500 ? '-phone' : ''}`);
      await page.close();
    }
  });

  it('a KEV product name breaks inside the dashboard\'s KEV table: the severity and risk columns stay in sight on a desktop (they went off to the right)', async () => {
    const data: DashboardData = {
      buildId: 'test-build',
      builtAt: '2026-11-24T06:00:00.000Z',
      cves: { active: 2, rejected: 0 },
      changes: null,
      kev: {
        as_of: '2026-11-23',
        days: 30,
        window_start: '2026-10-25',
        total: 2,
        limit: 10,
        offset: 0,
        cves: [kevEntry('CVE-2026-99950', 'Example', `Widget ${LONG_WORD} Server`), kevEntry('CVE-2026-99951', 'Example', 'Widget Server')],
      },
      weeks: [],
    };
    const html = await documentOf(DashboardPage({ data }));
    for (const width of [1280, 390]) {
      const page = await pageOf(html, '/pulse', width);
      const wrap = page.locator('#kev-additions').locator('xpath=..');
      const scroll = (await wrap.evaluate((el) => [el.scrollWidth, el.clientWidth])) as [number, number];
      expect(scroll[0], `the KEV table's scroll width at ${width} px`).toBeLessThanOrEqual(scroll[1]);
      // Every row's risk is drawn inside the window.
      for (const cell of await page.locator('#kev-additions td.num').all()) {
        const box = (await cell.boundingBox())!;
        expect(box.x + box.width, `a risk at ${width} px`).toBeLessThanOrEqual(width);
      }
      await screenshot(page, `dashboard-kev-long-product${width < 500 ? '-phone' : ''}`);
      await page.close();
    }
  });

  it('a package\'s name and a change\'s why break inside their column on a CVE page: the fixes and the history\'s other columns stay in sight on a desktop (they went off to the right)', async () => {
    const build = { build_id: '20261123T060000Z-aaaa', detected_at: '2026-11-23T06:00:00.000Z' };
    const history = [
      change({ ...build, kind: 'new_advisory', subject_type: 'advisory', vendor: 'cisco', advisory_id: 'cisco-sa-long-Zz9', why: `New cisco advisory cisco-sa-long-Zz9 (HIGH) for CVE-2026-99950: Harmless ${LONG_WORD} name.` }),
      change({ ...build, kind: 'new_cve', cve_id: 'CVE-2026-99950', why: 'New CVE published 2026-11-22: service severity CRITICAL (score 9.8), risk 51.6.' }),
    ];
    const branch = { introduced: '0', fixed: '1.2.3', last_affected: null, source: 'osv', advisory_id: 'GHSA-zzzz-zzzz-zzzz', range_type: 'SEMVER', limit: null };
    const packages = [
      { ecosystem: 'npm', package_name: `@harmless/${LONG_WORD.toLowerCase()}`, purl: null, source: 'osv', advisory_ids: [], fixed_branches: [branch], fixed_version: '1.2.3', versions: [], last_known_affected_version_range: null },
      { ecosystem: 'npm', package_name: 'left-pad', purl: null, source: 'osv', advisory_ids: [], fixed_branches: [branch], fixed_version: '1.2.3', versions: [], last_known_affected_version_range: null },
    ];
    const html = await documentOf(
      Layout({ title: 'CVE-2026-99950', section: 'cves', buildId: 'test-build', children: [AffectedPackages({ packages }), ChangeHistory({ history, id: 'history' })] }),
    );
    for (const width of [1280, 390]) {
      const page = await pageOf(html, '/pulse/cves/CVE-2026-99950', width);
      for (const table of ['#packages', '#history']) {
        const wrap = page.locator(table).locator('xpath=..');
        const scroll = (await wrap.evaluate((el) => [el.scrollWidth, el.clientWidth])) as [number, number];
        expect(scroll[0], `${table}'s scroll width at ${width} px`).toBeLessThanOrEqual(scroll[1]);
      }
      // Each row's fix, and each change's why, ends inside the window.
      for (const cell of [...(await page.locator('#packages td[data-label="Fixed in"]').all()), ...(await page.locator('#history td[data-label="Why"]').all())]) {
        const box = (await cell.boundingBox())!;
        expect(box.x + box.width, `a cell at ${width} px`).toBeLessThanOrEqual(width);
      }
      await screenshot(page, `cve-long-package-and-why${width < 500 ? '-phone' : ''}`);
      await page.close();
    }
  });
});
