/**
 * The /pulse pages in real Chromium (Debian's chromium through playwright-core) against a real
 * `vulnintel serve` of the test corpus: the dashboard's chart and counts, CVE search pages
 * forward and back, the score breakdown against the API's own score_factors, upstream markup
 * shown as text, the HTML 404 and 400 pages, an axe-core scan of every page (no serious or
 * critical violation, light and dark, desktop and 375 px), and a screenshot of each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startOn, type SampleServer } from '../api/server-harness.ts';
import { launchChromium, navigateBy, screenshot, selectsCutOff, seriousAxeViolations, spillingElements, valuesBrokenOverLines, vectorsBrokenMidPart, widerThanWindow, wordsBrokenMidWord, type RealBrowser } from './browser.ts';
import { buildPulseCorpus, MARKUP_CVE, MARKUP_DESCRIPTION } from './corpus.ts';

/** A CVE of the sample with a fixed version per distribution (long version strings). */
const PACKAGES_CVE = 'CVE-2026-90116';

let api: SampleServer;
let browser: RealBrowser;

beforeAll(async () => {
  const corpus = await buildPulseCorpus();
  api = await startOn(corpus.dataDir, corpus.buildId);
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await api?.server.close();
});

async function open(path: string, opts: { width?: number; dark?: boolean } = {}): Promise<{ page: Page; status: number }> {
  const page = await browser.newPage(opts);
  const res = await page.goto(`${api.base}${path}`);
  await page.waitForLoadState('load');
  return { page, status: res?.status() ?? 0 };
}

async function idsOn(page: Page): Promise<string[]> {
  return page.locator('#results > li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-cve') ?? ''));
}

interface Trends {
  weekly: { period_start: string; total: number; critical: number; high: number; medium: number; low: number; unscored: number }[];
}

describe('/pulse in Chromium', () => {
  it('the dashboard renders its chart (one bar per week with CVEs) and its KEV counts', async () => {
    const { page, status } = await open('/pulse');
    expect(status).toBe(200);
    const trends = (await api.json<Trends>('/api/v1/public/cves/trends')).body;
    const chart = page.locator('#weekly-chart');
    await expect.poll(() => chart.getAttribute('data-total')).toBe(String(trends.weekly.reduce((s, w) => s + w.total, 0)));
    expect(await chart.getAttribute('data-weeks')).toBe(String(trends.weekly.length));
    // Every non-zero severity count of every week is one rectangle of the chart, drawn.
    const segments = trends.weekly.reduce((s, w) => s + [w.critical, w.high, w.medium, w.low, w.unscored].filter((n) => n > 0).length, 0);
    expect(segments).toBeGreaterThan(0);
    expect(await page.locator('#weekly-chart svg rect').count()).toBe(segments);
    const box = await page.locator('#weekly-chart svg.plot').boundingBox();
    expect(box!.width).toBeGreaterThan(300);
    expect(box!.height).toBeGreaterThan(100);

    const kev = (await api.json<{ total: number; cves: { cve_id: string }[] }>('/api/v1/public/kev/recent?days=30&limit=10')).body;
    expect(await page.locator('#kev-additions tbody tr').count()).toBe(kev.cves.length);
    expect(await page.locator('#kev-additions tbody tr td:first-child a').allTextContents()).toEqual(kev.cves.map((c) => c.cve_id));
    await expect.poll(() => page.locator('#kev-h + p').textContent()).toContain(`${kev.total} added`);

    // The CVE count is the summary's and the list's (it counted the rejected in: "86 CVEs" over a
    // list of 82), the rejected apart; each leads to its list, which says the same number.
    const summary = (await api.json<{ total: number; rejected: number }>('/api/v1/public/cves/summary')).body;
    expect(await page.locator('#active-count').textContent()).toBe(`${summary.total} CVEs`);
    const listed = async (link: string) => {
      const href = (await page.locator(link).getAttribute('href'))!;
      return /of ([\d,]+) matching/.exec((await (await api.get(href)).text()))?.[1];
    };
    expect(await listed('#active-count')).toBe(String(summary.total));
    if (summary.rejected > 0) {
      expect(await page.locator('#rejected-count').textContent()).toBe(`${summary.rejected} rejected`);
      expect(await listed('#rejected-count')).toBe(String(summary.rejected));
    } else {
      expect(await page.locator('#rejected-count').count()).toBe(0);
    }
    await screenshot(page, 'dashboard');
    await page.close();
  });

  it('the chart\'s labels are legible on a phone (≥ 11 px; they were 6 px), never overlap, and the weeks carry their year', async () => {
    for (const width of [390, 1280]) {
      const { page } = await open('/pulse', { width });
      const labels = (await page.evaluate(`(() => [...document.querySelectorAll('#weekly-chart svg text')]
        .filter((t) => t.getBoundingClientRect().width > 0)
        .map((t) => {
          const r = t.getBoundingClientRect();
          const svg = t.ownerSVGElement.getBoundingClientRect();
          return { text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a, left: r.left, right: r.right, top: Math.round(r.top), week: t.parentElement.getAttribute('data-week-label'),
            inside: r.left >= svg.left - 0.5 && r.right <= svg.right + 0.5 };
        }))()`)) as { text: string; px: number; left: number; right: number; top: number; week: string | null; inside: boolean }[];
      const label = `${width} px`;
      expect(labels.length, label).toBeGreaterThan(4);
      for (const l of labels) {
        expect(l.px, `${label}: "${l.text}"`).toBeGreaterThanOrEqual(11);
        // Drawn whole, not cut off at the chart's edge.
        expect(l.inside, `${label}: "${l.text}" inside its chart`).toBe(true);
      }
      // The week labels of one line, left to right, apart.
      const weekLine = labels.filter((l) => l.week !== null && !/^\d{4}$/.test(l.text));
      expect(weekLine.length, label).toBeGreaterThanOrEqual(3);
      for (let i = 1; i < weekLine.length; i++) expect(weekLine[i]!.left, `${label}: ${weekLine[i - 1]!.text} | ${weekLine[i]!.text}`).toBeGreaterThan(weekLine[i - 1]!.right + 4);
      // The first week shown names its year ("06-08" said neither year nor which is the month).
      expect(labels.filter((l) => l.week === weekLine[0]!.week).map((l) => l.text), label).toContainEqual(expect.stringMatching(/^20\d\d$/));
      await screenshot(page, `dashboard-chart-${width}`);
      await page.close();
    }
  });

  it('search pages go forward by keyset and back again, with the API\'s rows', async () => {
    const expected = (await api.json<{ cves: { cve_id: string }[] }>('/api/v1/public/cves?limit=30')).body.cves.map((c) => c.cve_id);
    const { page } = await open('/pulse/cves?limit=10');
    const pages: string[][] = [await idsOn(page)];
    expect(pages[0]).toEqual(expected.slice(0, 10));
    for (const n of [1, 2]) {
      await navigateBy(page, () => page.locator('#page-next').click());
      expect(page.url()).toContain('before_cve_id=');
      pages.push(await idsOn(page));
      expect(pages[n]).toEqual(expected.slice(10 * n, 10 * n + 10));
      expect(await page.locator('#result-line').textContent()).toContain(`Page ${n + 1}`);
    }
    await screenshot(page, 'cves-page-3');
    for (const n of [1, 0]) {
      await navigateBy(page, () => page.locator('#page-prev').click());
      expect(await idsOn(page)).toEqual(pages[n]);
    }
    expect(page.url()).not.toContain('before_cve_id');
    await page.close();
  });

  it('a filtered, sorted search (the form, offset pages) shows the API\'s rows', async () => {
    const query = 'severity=CRITICAL,HIGH&sort=epss';
    const expected = (await api.json<{ cves: { cve_id: string }[]; total: number }>(`/api/v1/public/cves?${query}&limit=10`)).body;
    const { page } = await open('/pulse/cves');
    await page.getByLabel('critical').check();
    await page.getByLabel('high', { exact: true }).check();
    await page.getByLabel('Order').selectOption('epss');
    await page.getByLabel('Per page').selectOption('10');
    await Promise.all([page.waitForURL(/sort=epss/), page.getByRole('button', { name: 'Apply filters' }).click()]);
    expect(await idsOn(page)).toEqual(expected.cves.map((c) => c.cve_id));
    expect(await page.locator('#result-line').textContent()).toContain(`of ${expected.total} matching`);
    expect(await page.getByLabel('critical').isChecked()).toBe(true);
    await screenshot(page, 'cves-filtered');
    await page.close();
  });

  it('a CVE page shows the breakdown whose numbers are the API\'s score_factors', async () => {
    const kev = (await api.json<{ cves: { cve_id: string }[] }>('/api/v1/public/cves?kev_only=true&limit=3')).body.cves.map((c) => c.cve_id);
    const plain = (await api.json<{ cves: { cve_id: string }[] }>('/api/v1/public/cves?limit=3&severity=MEDIUM')).body.cves.map((c) => c.cve_id);
    for (const id of [...kev, ...plain]) {
      const record = (await api.json<{ service_score: number; service_risk: number; score_factors: { base_score: number | null; svc_risk: Record<string, number> & { weights: Record<string, number> } } }>(`/api/v1/public/cves/${id}`)).body;
      const { page, status } = await open(`/pulse/cves/${id}`);
      expect(status).toBe(200);
      const value = (factor: string) => page.locator(`[data-factor="${factor}"] .val`).getAttribute('data-value').then(Number);
      const text = (factor: string) => page.locator(`[data-factor="${factor}"] .val`).textContent();
      const risk = record.score_factors.svc_risk;
      expect(await value('severity_norm')).toBe(risk.severity_norm);
      expect(await value('exploitation')).toBe(risk.exploitation);
      expect(await value('automatable')).toBe(risk.automatable);
      expect(await value('risk')).toBe(risk.risk);
      expect(await value('service_score')).toBe(record.service_score);
      if (record.score_factors.base_score !== null) expect(await value('base_score')).toBe(record.score_factors.base_score);
      // The points shown are weight × factor × 100, and the risk shown is the record's.
      expect(await text('severity_norm')).toBe(`${(risk.weights.severity! * risk.severity_norm! * 100).toFixed(1)} pts`);
      expect(await text('exploitation')).toBe(`${(risk.weights.exploitation! * risk.exploitation! * 100).toFixed(1)} pts`);
      expect(await text('automatable')).toBe(`${(risk.weights.automatable! * risk.automatable! * 100).toFixed(1)} pts`);
      expect(await text('risk')).toBe(record.service_risk.toFixed(1));
      if (id === kev[0]) {
        expect(await page.locator('#kev dt').first().textContent()).toBe('Added');
        await screenshot(page, 'cve');
        await page.setViewportSize({ width: 375, height: 800 });
        await screenshot(page, 'cve-phone');
      }
      await page.close();
    }
  });

  it('a CVE vector is decoded into the FIRST metric names', async () => {
    const { page } = await open(`/pulse/cves/${MARKUP_CVE}`);
    const vector = page.locator('[data-vector^="CVSS:3.1/"]');
    expect(await vector.locator('dt').allTextContents()).toEqual(
      expect.arrayContaining(['Attack Vector', 'Attack Complexity', 'Privileges Required', 'User Interaction', 'Scope', 'Confidentiality Impact', 'Integrity Impact', 'Availability Impact']),
    );
    const pairs = await vector.locator('dt').evaluateAll((dts) => dts.map((dt) => `${dt.textContent}=${dt.nextElementSibling?.textContent}`));
    expect(pairs).toEqual(expect.arrayContaining(['Attack Vector=Network', 'User Interaction=Required', 'Scope=Changed', 'Availability Impact=None']));
    await page.close();
  });

  it('a CVSS vector on a phone breaks after a slash, never inside a metric (a CVE page drew "…/C:H/I" over ":H/A:H", an advisory\'s "…/I" over ":L/A:N")', async () => {
    type Vectors = { cve_id: string; cvss_v2_vector: string | null; cvss_v3_vector: string | null; cvss_v4_vector: string | null };
    const cves = (await api.json<{ cves: Vectors[] }>('/api/v1/public/cves?limit=200')).body.cves.filter((c) => c.cvss_v3_vector || c.cvss_v4_vector).slice(0, 5);
    // The list carries no vector: the advisories with a CVSS score, whose pages may show one.
    const advisories = (await api.json<{ advisories: { vendor: string; advisory_id: string; cvss_score: number | null }[] }>('/api/v1/public/vendor-advisories?limit=200')).body.advisories.filter((a) => a.cvss_score !== null);
    expect(cves.length, 'CVEs of the corpus with a vector').toBeGreaterThan(0);
    const paths = [...cves.map((c) => `/pulse/cves/${c.cve_id}`), ...advisories.map((a) => `/pulse/advisories/${encodeURIComponent(a.vendor)}/${encodeURIComponent(a.advisory_id)}`)];
    const broken: string[] = [];
    let advisoryVectors = 0;
    for (const path of paths) {
      const { page } = await open(path, { width: 375 });
      broken.push(...(await vectorsBrokenMidPart(page)).map((b) => `${path}: ${b}`));
      // The vector reads as it was published (a copy of it too): the breaks add no character.
      for (const code of await page.locator('main code').allTextContents()) {
        if (!/^(CVSS:|AV:)/.test(code)) continue;
        expect(code).not.toMatch(/\s/);
        if (path.startsWith('/pulse/advisories/')) advisoryVectors++;
      }
      await page.close();
    }
    expect(advisoryVectors, 'advisory pages of the corpus showing a vector').toBeGreaterThan(0);
    expect(broken).toEqual([]);
  });

  it('a description holding markup is shown as text, and runs nothing', async () => {
    const { page, status } = await open(`/pulse/cves/${MARKUP_CVE}`);
    expect(status).toBe(200);
    expect(await page.locator('#description').textContent()).toBe(MARKUP_DESCRIPTION);
    expect(await page.evaluate('window.__pulsePwned')).toBeUndefined();
    expect(await page.locator('main script, main img, main b').count()).toBe(0);
    // The javascript: reference is text, not a link.
    expect(await page.locator('#references a[href^="javascript:"]').count()).toBe(0);
    expect(await page.locator('#references').textContent()).toContain('javascript:window.__pulsePwned=3');
    await screenshot(page, 'cve-markup');
    await page.close();
    // The same CVE in a list page: escaped there too.
    const list = await open(`/pulse/cves?search=${encodeURIComponent('crafted payload admin')}`);
    expect(await idsOn(list.page)).toContain(MARKUP_CVE);
    expect(await list.page.locator('#results script, #results img').count()).toBe(0);
    expect(await list.page.evaluate('window.__pulsePwned')).toBeUndefined();
    await list.page.close();
  });

  it('an unknown CVE or advisory is an HTML 404 page; a malformed filter a 400 page naming it', async () => {
    for (const path of ['/pulse/cves/CVE-1999-99999', '/pulse/cves/not-a-cve', '/pulse/advisories/nobody/NOPE-1', '/pulse/no-such-page']) {
      const { page, status } = await open(path);
      expect(status, path).toBe(404);
      expect(await page.locator('h1').count()).toBe(1);
      expect(await page.locator('[role="alert"]').getAttribute('data-status')).toBe('404');
      if (path.endsWith('99999')) await screenshot(page, 'not-found');
      await page.close();
    }
    for (const [query, parameter] of [
      ['/pulse/cves?min_cvss=eleven', 'min_cvss'],
      ['/pulse/cves?severity=SEVERE', 'severity'],
      ['/pulse/cves?year=20x4', 'year'],
      ['/pulse/cves?sort=epss&before_published=2026-01-01&before_cve_id=CVE-2026-0001', 'sort'],
      ['/pulse/cves?back=garbage&before_published=2026-01-01&before_cve_id=CVE-2026-0001', 'back'],
      ['/pulse/advisories?has_cve=maybe', 'has_cve'],
      // Sent twice: refused as on /pulse/cves (the first was taken, the second silently dropped).
      ['/pulse/advisories?vendor=redhat&vendor=cisco', 'vendor'],
      ['/pulse/advisories?offset=0&offset=25', 'offset'],
    ] as const) {
      const { page, status } = await open(query);
      expect(status, query).toBe(400);
      expect(await page.locator('[role="alert"]').getAttribute('data-parameter'), query).toBe(parameter);
      expect(await page.locator('[role="alert"]').textContent()).toContain(parameter);
      if (parameter === 'min_cvss') {
        await screenshot(page, 'bad-filter');
        expect(await page.locator('#without-parameter').getAttribute('href')).toBe('/pulse/cves');
      }
      // A way on without the faulty filter, the others kept (the page was a dead end).
      if (query === '/pulse/cves?sort=epss&before_published=2026-01-01&before_cve_id=CVE-2026-0001') {
        expect(await page.locator('#without-parameter').getAttribute('href')).toBe('/pulse/cves?before_published=2026-01-01&before_cve_id=CVE-2026-0001');
      }
      await page.close();
    }
  });

  it('a refused filter of the CVE list shows the form again as typed, the field marked and focused, named by its label (it was a page naming "min_cvss" with no form)', async () => {
    const { page } = await open('/pulse/cves');
    await page.locator('#f-search').fill('router');
    await page.locator('#f-min-cvss').fill('abc');
    await page.locator('#f-vendor').fill('cisco');
    await page.getByRole('checkbox', { name: 'high' }).check();
    const answer = await navigateBy(page, () => page.getByRole('button', { name: 'Apply filters' }).click(), (r) => r.url().includes('/pulse/cves?'));
    expect(answer.status()).toBe(400);
    // Everything as typed.
    expect(await page.locator('#f-search').inputValue()).toBe('router');
    expect(await page.locator('#f-vendor').inputValue()).toBe('cisco');
    expect(await page.getByRole('checkbox', { name: 'high' }).isChecked()).toBe(true);
    // The field at fault: marked, its message beside it, focused; the notice names its label and leads to it.
    const field = page.locator('#f-min-cvss');
    expect(await field.inputValue()).toBe('abc');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator(`#${await field.getAttribute('aria-describedby')}`).textContent()).toContain('expected a number from 0 to 10');
    expect(await page.evaluate('document.activeElement.id')).toBe('f-min-cvss');
    const notice = page.locator('[role="alert"]');
    expect(await notice.getAttribute('data-parameter')).toBe('min_cvss');
    expect(await notice.locator('h2').textContent()).toContain('Lowest CVSS');
    expect(await notice.getByRole('link', { name: 'Go to Lowest CVSS' }).getAttribute('href')).toBe('#f-min-cvss');
    expect(await page.locator('#results').count()).toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'bad-filter-form');
    // Corrected there, the search runs.
    await field.fill('7');
    const fixed = await navigateBy(page, () => page.getByRole('button', { name: 'Apply filters' }).click(), (r) => r.url().includes('/pulse/cves?'));
    expect(fixed.status()).toBe(200);
    expect(new URL(page.url()).searchParams.get('search')).toBe('router');
    await page.close();
  });

  it('every page passes an axe-core scan (no serious or critical violation), draws no text outside its box and breaks no CVE id or date, light and dark, desktop and 375 px', async () => {
    const advisory = (await api.json<{ advisories: { vendor: string; advisory_id: string }[] }>('/api/v1/public/vendor-advisories?has_cve=false&limit=1')).body.advisories[0]!;
    const kevId = (await api.json<{ cves: { cve_id: string }[] }>('/api/v1/public/cves?kev_only=true&limit=1')).body.cves[0]!.cve_id;
    // A CVE scored in all three CVSS versions: three vector panels side by side, v4's metric
    // names the longest.
    type Vectors = { cve_id: string; cvss_v2_vector: string | null; cvss_v3_vector: string | null; cvss_v4_vector: string | null };
    const everyCvss = (await api.json<{ cves: Vectors[] }>('/api/v1/public/cves?limit=200')).body.cves.find(
      (c) => c.cvss_v2_vector && c.cvss_v3_vector && c.cvss_v4_vector,
    );
    expect(everyCvss, 'a CVE of the corpus with CVSS v2, v3 and v4 vectors').toBeDefined();
    const pages: [string, string][] = [
      ['dashboard', '/pulse'],
      ['cves', '/pulse/cves'],
      ['cve', `/pulse/cves/${kevId}`],
      ['cve-every-cvss', `/pulse/cves/${everyCvss!.cve_id}`],
      ['advisories', '/pulse/advisories'],
      ['advisory-without-cve', `/pulse/advisories/${advisory.vendor}/${advisory.advisory_id}`],
      // Fixes per distribution: versions such as 3.0.2-0ubuntu1.18, broken mid-version on a phone.
      ['cve-packages', `/pulse/cves/${PACKAGES_CVE}`],
      // Without a subscription store: the filter and its preview only, by GET.
      ['subscribe-no-store', '/pulse/subscribe?vendor=cisco&preview=1'],
      ['not-found', '/pulse/cves/CVE-1999-99999'],
      ['bad-filter', '/pulse/cves?min_cvss=eleven'],
      // What the caller typed, quoted back by the error, wraps instead of widening the page.
      ['not-found-long', `/pulse/nothing/${'x'.repeat(300)}`],
      ['bad-filter-long', `/pulse/advisories?vendor=${'x'.repeat(300)}`],
    ];
    for (const [name, path] of pages) {
      for (const variant of [{}, { dark: true }, { width: 375 }] as const) {
        const { page } = await open(path, variant);
        const violations = await seriousAxeViolations(page);
        const label = `${path} ${JSON.stringify(variant)}`;
        expect(violations, `${label}: ${JSON.stringify(violations, null, 1)}`).toEqual([]);
        expect(await page.locator('h1').count(), label).toBe(1);
        // No text drawn outside its box (a score over a panel's border, a value pushed out of it).
        expect(await spillingElements(page), label).toEqual([]);
        // A CVE id or a date in one piece, never broken at a hyphen.
        expect(await valuesBrokenOverLines(page), label).toEqual([]);
        // No word of a table broken in its middle (a squeezed column: "Vulnerabili/ty", "CRITICA/L").
        expect(await wordsBrokenMidWord(page), label).toEqual([]);
        // Every choice of a select readable whole in its box.
        expect(await selectsCutOff(page), label).toEqual([]);
        // Nothing wider than a phone's screen at 375 px.
        if ('width' in variant) {
          expect(await widerThanWindow(page), label).toBeLessThanOrEqual(0);
        }
        const suffix = 'dark' in variant ? '-dark' : 'width' in variant ? '-phone' : '';
        await screenshot(page, `${name}${suffix}`);
        await page.close();
      }
    }
  }, 400_000);

  it('a link\'s choices spelled as the API takes them (kev_only=1, status=ALL, sort=EPSS, severity_basis=SVC) are the ones the form shows, and Apply keeps them (it showed the defaults, and Apply dropped them)', async () => {
    const path = '/pulse/cves?kev_only=1&status=ALL&sort=EPSS&severity=critical&severity_basis=SVC&limit=10';
    const { page } = await open(path);
    const line = await page.locator('#result-line').textContent();
    const canonical = await (await api.get('/pulse/cves?kev_only=true&status=all&sort=epss&severity=CRITICAL&severity_basis=svc&limit=10')).text();
    expect(line).toBe(/<p id="result-line" role="status">([^<]*)<\/p>/.exec(canonical)![1]);
    expect((await idsOn(page)).length).toBeGreaterThan(1);
    expect(await page.locator('#f-kev-only').isChecked()).toBe(true);
    expect(await page.locator('#f-status').inputValue()).toBe('all');
    expect(await page.locator('#f-sort').inputValue()).toBe('epss');
    expect(await page.locator('#f-basis').inputValue()).toBe('svc');
    await Promise.all([page.waitForURL(/kev_only=true/), page.getByRole('button', { name: 'Apply filters' }).click()]);
    expect(await page.locator('#result-line').textContent()).toBe(line);
    expect(await idsOn(page)).toEqual([...canonical.matchAll(/data-cve="(CVE-[^"]+)"/g)].map((m) => m[1]));
    await page.close();
  });

  it('the chart\'s numbers, opened on a phone, scroll in a region the keyboard reaches, named and with a visible focus (axe: scrollable-region-focusable, serious)', async () => {
    const { page } = await open('/pulse', { width: 375 });
    await page.locator('#weekly-chart summary').click();
    const region = page.getByRole('region', { name: 'The numbers behind the chart' });
    // Wider than the phone: its last columns are reached by scrolling the box.
    const [scrollWidth, clientWidth] = (await region.evaluate((el) => [el.scrollWidth, el.clientWidth])) as [number, number];
    expect(scrollWidth).toBeGreaterThan(clientWidth);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.keyboard.press('Tab');
    expect(await region.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    expect(await region.evaluate((el) => el.ownerDocument.defaultView!.getComputedStyle(el).outlineStyle)).toBe('solid');
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
    await expect.poll(() => region.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
    await screenshot(page, 'dashboard-numbers-phone');
    await page.close();
  });
});

describe('/pulse over plain HTTP', () => {
  it('an asset answers HEAD with the headers of its GET, Content-Length included (HEAD had none)', async () => {
    const html = await (await api.get('/pulse')).text();
    const assets = [...html.matchAll(/(?:href|src)="(\/pulse\/assets\/[^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
    expect(assets.length).toBe(2);
    for (const asset of assets) {
      const get = await fetch(`${api.base}${asset}`);
      const body = new Uint8Array(await get.arrayBuffer());
      const head = await fetch(`${api.base}${asset}`, { method: 'HEAD' });
      expect(head.status, asset).toBe(200);
      expect(get.headers.get('content-length'), asset).toBe(String(body.byteLength));
      for (const name of ['content-length', 'content-type', 'etag', 'cache-control']) {
        expect(head.headers.get(name), `${name} of HEAD ${asset}`).toBe(get.headers.get(name));
      }
    }
  });

  it('a refused page size that is no number shows in the Per page box as typed (it read "NaN")', async () => {
    const res = await api.get('/pulse/cves?limit=abc&search=linux');
    expect(res.status).toBe(400);
    const html = await res.text();
    const box = /<select id="f-limit"[^>]*>(.*?)<\/select>/s.exec(html)![1]!;
    expect([...box.matchAll(/<option value="([^"]*)"( selected="")?>/g)].map((m) => `${m[1]}${m[2] ? '*' : ''}`)).toEqual(['10', '25', '50', '100', 'abc*']);
    expect(html).not.toContain('NaN');
  });

  it('an advisory its vendor says is exploited is badged so, not as listed in CISA KEV (none of its CVEs is)', async () => {
    const advisory = (await api.json<{ vendor: string; advisory_id: string; cve_ids: string[]; exploited: boolean }>('/api/v1/public/vendor-advisories/microsoft/2026-Oct')).body;
    expect(advisory.exploited).toBe(true);
    for (const id of advisory.cve_ids) expect((await api.json<{ kev: boolean }>(`/api/v1/public/cves/${id}`)).body.kev, id).toBe(false);
    const html = await (await api.get('/pulse/advisories/microsoft/2026-Oct')).text();
    const badges = [...html.matchAll(/<span class="badge kev"[^>]*>[^<]*<\/span>/g)].map((m) => m[0]);
    expect(badges).toEqual(['<span class="badge kev" title="microsoft says it is exploited in the wild">EXPLOITED</span>']);
    expect(html).not.toContain('Known Exploited Vulnerabilities catalog');
  });

  it('pages are complete without JavaScript: the chart and the rows are in the HTML', async () => {
    const html = await (await api.get('/pulse')).text();
    expect(html).toMatch(/<svg class="plot"/);
    expect(html).toContain('id="kev-additions"');
    const list = await (await api.get('/pulse/cves?limit=5')).text();
    expect(list.match(/data-cve="CVE-/g)?.length).toBe(5);
  });

  it('a published-order page asked by offset is numbered by its rows and paged by offset from there (it said "Page 1")', async () => {
    const expected = (await api.json<{ cves: { cve_id: string }[] }>('/api/v1/public/cves?limit=30')).body.cves.map((c) => c.cve_id);
    const resultLine = (html: string) => /id="result-line"[^>]*>([^<]*)</.exec(html)?.[1];
    const link = (html: string, rel: string) => new RegExp(`href="([^"]*)" rel="${rel}"`).exec(html)?.[1]?.replace(/&amp;/g, '&');
    const ids = (html: string) => [...html.matchAll(/data-cve="(CVE-[^"]+)"/g)].map((m) => m[1]);
    const aligned = await (await api.get('/pulse/cves?limit=10&offset=10')).text();
    expect(resultLine(aligned)).toMatch(/^Page 2: 10 of /);
    expect(ids(aligned)).toEqual(expected.slice(10, 20));
    expect(link(aligned, 'next')).toBe('/pulse/cves?limit=10&offset=20');
    expect(link(aligned, 'prev')).toBe('/pulse/cves?limit=10');
    const unaligned = await (await api.get('/pulse/cves?limit=10&offset=3')).text();
    expect(resultLine(unaligned)).toMatch(/^Rows 4–13 of /);
    expect(ids(unaligned)).toEqual(expected.slice(3, 13));
    // A cursor and an offset together: no page the links make, no number to give it.
    const both = await api.get('/pulse/cves?limit=10&offset=3&before_published=2026-01-01&before_cve_id=CVE-2026-0001');
    expect(both.status).toBe(400);
    expect(await both.text()).toContain('data-parameter="offset"');
  });

  it('a page asked with a trailing slash is sent to it (it was a 404), pages name no icon to fetch, and an advisories page past the end says so', async () => {
    const slash = await fetch(`${api.base}/pulse/cves/?severity=HIGH`, { redirect: 'manual' });
    expect(slash.status).toBe(301);
    expect(slash.headers.get('location')).toBe('/pulse/cves?severity=HIGH');
    expect(await (await api.get('/pulse')).text()).toContain('<link rel="icon" href="data:,"/>');
    const past = await (await api.get('/pulse/advisories?offset=99999')).text();
    expect(past).toMatch(/advisories; none from number 100000 on \(past the last page\)\./);
    expect(past).not.toContain('100000–99999');
  });

  it('a CVE page asked in lower case is sent to its one address (it was a 200 copy)', async () => {
    const id = (await (await api.get('/api/v1/public/cves?limit=1')).json() as { cves: { cve_id: string }[] }).cves[0]!.cve_id;
    const lower = await fetch(`${api.base}/pulse/cves/${id.toLowerCase()}?x=1`, { redirect: 'manual' });
    expect(lower.status).toBe(301);
    expect(lower.headers.get('location')).toBe(`/pulse/cves/${id}?x=1`);
    expect((await api.get(`/pulse/cves/${id}`)).status).toBe(200);
    // Not a CVE id at all: still the 404 page, not a redirect.
    expect((await fetch(`${api.base}/pulse/cves/not-a-cve`, { redirect: 'manual' })).status).toBe(404);
  });

  it('an advisory page asked in another case is sent to its one address (it was a 200 copy)', async () => {
    const { vendor, advisory_id: id } = (await (await api.get('/api/v1/public/vendor-advisories?vendor=redhat&limit=1')).json() as { advisories: { vendor: string; advisory_id: string }[] }).advisories[0]!;
    const path = `/pulse/advisories/${encodeURIComponent(vendor)}/${encodeURIComponent(id)}`;
    for (const asked of [`/pulse/advisories/${vendor.toUpperCase()}/${encodeURIComponent(id)}`, `/pulse/advisories/${vendor}/${encodeURIComponent(id.toLowerCase())}`]) {
      const res = await fetch(`${api.base}${asked}?x=1`, { redirect: 'manual' });
      expect(res.status, asked).toBe(301);
      expect(res.headers.get('location'), asked).toBe(`${path}?x=1`);
    }
    expect((await api.get(path)).status).toBe(200);
    // Its colon unescaped is the same address: no redirect.
    expect((await fetch(`${api.base}/pulse/advisories/${vendor}/${id}`, { redirect: 'manual' })).status).toBe(200);
    expect((await fetch(`${api.base}/pulse/advisories/${vendor}/no-such-advisory`, { redirect: 'manual' })).status).toBe(404);
  });

  it('an advisory\'s remediation links say where they lead (each read "link")', async () => {
    const html = await (await api.get('/pulse/advisories/redhat/RHSA-2026%3A9102')).text();
    const section = /<section aria-labelledby="arem-h">([\s\S]*?)<\/section>/.exec(html)?.[1];
    expect(section, 'the remediation section').toBeDefined();
    const links = [...section!.matchAll(/<a href="([^"]*)"[^>]*>([^<]*)<\/a>/g)].map((m) => [m[1], m[2]]);
    expect(links).toEqual([['https://access.redhat.com/errata/RHSA-2026:9102', 'https://access.redhat.com/errata/RHSA-2026:9102']]);
  });

  it('a page past the end says so and leads to the last page (it said "No CVE matches these filters" and linked one page back, past the end again)', async () => {
    const resultLine = (html: string) => /id="result-line"[^>]*>([^<]*)</.exec(html)?.[1];
    const link = (html: string, rel: string) => new RegExp(`href="([^"]*)" rel="${rel}"`).exec(html)?.[1]?.replace(/&amp;/g, '&');
    const pastEndLink = (html: string) => /id="past-end"><a href="([^"]*)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
    const ids = (html: string) => [...html.matchAll(/data-cve="(CVE-[^"]+)"/g)].map((m) => m[1]);
    const total = (await api.json<{ total: number }>('/api/v1/public/cves?sort=epss&limit=1')).body.total;
    const lastPage = Math.ceil(total / 25);
    const lastOffset = (lastPage - 1) * 25;
    const expectedLast = `/pulse/cves?sort=epss${lastOffset > 0 ? `&offset=${lastOffset}` : ''}`;

    const byOffset = await (await api.get('/pulse/cves?sort=epss&offset=100000')).text();
    expect(resultLine(byOffset)).toBe(`Page 4,001 is past the end: ${total} matching CVEs, on ${lastPage} pages.`);
    expect(byOffset).not.toContain('No CVE matches');
    expect(link(byOffset, 'prev')).toBe(expectedLast);
    expect(pastEndLink(byOffset)).toBe(expectedLast);
    expect(link(byOffset, 'next')).toBeUndefined();
    const last = await (await api.get(expectedLast)).text();
    expect(ids(last).length).toBe(total - lastOffset);

    // A cursor past the last row (published order): the same, never "nothing matches".
    const all = (await api.json<{ total: number }>('/api/v1/public/cves?limit=1')).body.total;
    const byCursor = await (await api.get('/pulse/cves?before_published=1990-01-01T00:00:00Z&before_cve_id=CVE-1990-0001')).text();
    expect(byCursor).not.toContain('No CVE matches');
    expect(resultLine(byCursor)).toContain(`is past the end: ${all} matching CVEs`);
    const back = pastEndLink(byCursor)!;
    expect(link(byCursor, 'prev')).toBe(back);
    expect(ids(await (await api.get(back)).text()).length).toBeGreaterThan(0);

    // The advisories list: back from past the end is its last page, not offset − 25.
    const advisories = (await api.json<{ total: number }>('/api/v1/public/vendor-advisories?limit=1')).body.total;
    const advLast = Math.floor((advisories - 1) / 25) * 25;
    const pastAdvisories = await (await api.get('/pulse/advisories?offset=1000')).text();
    expect(link(pastAdvisories, 'prev')).toBe(`/pulse/advisories${advLast > 0 ? `?offset=${advLast}` : ''}`);
    expect(pastEndLink(pastAdvisories)).toBe(link(pastAdvisories, 'prev'));
  });

  it('a page size asked by hand is the one the Per page box shows; has_cve takes the API\'s true and false; one of a thing is singular', async () => {
    const seven = await (await api.get('/pulse/cves?limit=7')).text();
    expect(seven).toContain('<option value="7" selected="">7</option>');
    expect(seven.match(/data-cve="CVE-/g)?.length).toBe(7);
    const line = (html: string) => /id="result-line"[^>]*>([\s\S]*?)<\/p>/.exec(html)?.[1]?.replace(/\s+/g, ' ').trim();
    for (const [api_, form] of [['true', 'yes'], ['false', 'no']]) {
      const given = await api.get(`/pulse/advisories?has_cve=${api_}`);
      expect(given.status, api_).toBe(200);
      expect(line(await given.text()), api_).toBe(line(await (await api.get(`/pulse/advisories?has_cve=${form}`)).text()));
    }
    expect((await api.get('/pulse/advisories?has_cve=maybe')).status).toBe(400);
    const one = await (await api.get(`/pulse/cves?search=${encodeURIComponent('crafted payload admin')}`)).text();
    expect(line(one)).toBe('Page 1: 1 of 1 matching CVE.');
  });

  it('the advisories list links each CVE it names to its page (they were plain text)', async () => {
    const html = await (await api.get('/pulse/advisories')).text();
    const rows = [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => m[1]!).filter((row) => row.includes('/pulse/advisories/'));
    const named = rows.flatMap((row) => [...row.matchAll(/(CVE-\d{4}-\d+)/g)].map((m) => m[1]!));
    expect(named.length).toBeGreaterThan(0);
    for (const id of new Set(named)) {
      const known = (await api.get(`/api/v1/public/cves/${id}`)).status === 200;
      if (known) expect(html, id).toContain(`<a href="/pulse/cves/${id}">${id}</a>`);
      else expect(html, id).not.toContain(`href="/pulse/cves/${id}"`);
    }
  });

  it('an advisory\'s CVE table says its CVSS is the vendor\'s (a CVE the vendor gave none showed "CVSS —" beside its own 7.8)', async () => {
    const linked = (await api.json<{ advisories: { vendor: string; advisory_id: string }[] }>('/api/v1/public/vendor-advisories?has_cve=true&limit=1')).body.advisories[0]!;
    const html = await (await api.get(`/pulse/advisories/${linked.vendor}/${encodeURIComponent(linked.advisory_id)}`)).text();
    const table = /<table id="advisory-cves"[\s\S]*?<\/table>/.exec(html)![0];
    const heads = [...table.matchAll(/<th scope="col">([^<]*)<\/th>/g)].map((m) => m[1]);
    expect(heads).toEqual(['CVE', 'Vendor&#39;s band', 'Vendor&#39;s CVSS', 'Exploited']);
    expect(table).not.toMatch(/data-label="CVSS"/);
    expect(html).toContain('id="advisory-cves-note"');
  });

  it('pages carry an ETag per snapshot and answer 304 to it; a strict CSP; assets are served locally', async () => {
    const first = await api.get('/pulse/cves?limit=5');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"/);
    expect(first.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(first.headers.get('x-snapshot')).toBe(api.buildId);
    const again = await api.get('/pulse/cves?limit=5', { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    const other = await api.get('/pulse/cves?limit=6');
    expect(other.headers.get('etag')).not.toBe(etag);
    const html = await first.text();
    const assets = [...html.matchAll(/(?:href|src)="(\/pulse\/assets\/[^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
    expect(assets.length).toBe(2);
    for (const asset of assets) {
      const res = await api.get(asset);
      expect(res.status, asset).toBe(200);
      expect(res.headers.get('cache-control')).toContain('immutable');
      // Revalidated like every answer: the tag weak or strong, alone or in a list.
      const tag = res.headers.get('etag')!;
      for (const sent of [tag, `W/${tag}`, `"other", ${tag}`]) {
        expect((await api.get(asset, { headers: { 'If-None-Match': sent } })).status, `${asset} ${sent}`).toBe(304);
      }
    }
    // No page refers to another origin for an asset.
    expect(html).not.toMatch(/(?:href|src)="(?:https?:)?\/\/[^"]*\.(?:css|js)/);
  });

  it('a refused filter of the subscribe form (a GET on a server without subscriptions) shows the form again as typed, the field marked (it was an error page: every field typed was gone)', async () => {
    const { page } = await open('/pulse/subscribe');
    await page.getByLabel('Vendor (a whole vendor)').fill('cisco');
    await page.getByLabel('Lowest risk (0–100)').fill('150');
    await page.getByLabel('Known exploited (KEV) only').check();
    const answer = await navigateBy(page, () => page.getByRole('button', { name: 'Preview' }).click(), (r) => r.url().includes('/pulse/subscribe?'));
    expect(answer.status()).toBe(400);
    expect(await page.locator('h1').textContent()).toBe('Subscribe to changes');
    expect(await page.locator('#notice').getAttribute('data-field')).toBe('min_risk');
    expect(await page.locator('#notice').textContent()).toContain('min_risk: expected a number from 0 to 100, got 150');
    expect(await page.locator('#s-min-risk').inputValue()).toBe('150');
    expect(await page.locator('#s-min-risk').getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate('document.activeElement.id')).toBe('s-min-risk');
    expect(await page.locator('#s-vendor').inputValue()).toBe('cisco');
    expect(await page.locator('#s-kev-only').isChecked()).toBe(true);
    await page.close();
  });

  it('a refused filter\'s page answers HEAD with the headers of its GET (HEAD left out the "without it" link: another Content-Length and ETag)', async () => {
    for (const path of ['/pulse/cves?min_cvss=11&search=linux', '/pulse/cves?offset=-1&search=linux', '/pulse/advisories?has_cve=maybe&vendor=cisco', '/pulse/subscribe?min_risk=abc&vendor=cisco']) {
      const get = await fetch(`${api.base}${path}`);
      const body = new Uint8Array(await get.arrayBuffer());
      expect(get.status, path).toBe(400);
      expect(get.headers.get('content-length'), path).toBe(String(body.byteLength));
      const head = await fetch(`${api.base}${path}`, { method: 'HEAD' });
      expect(head.status, path).toBe(400);
      for (const name of ['content-length', 'etag', 'content-type', 'cache-control']) {
        expect(head.headers.get(name), `${name} of HEAD ${path}`).toBe(get.headers.get(name));
      }
    }
  });
});
