/**
 * Real Chromium for the /pulse browser tests: Debian's `chromium` (/usr/bin/chromium) driven
 * by playwright-core, headless, with a fresh profile per launch. When the binary is missing
 * the tests fail saying which package to install (`make test` and `.ci/run` install it).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page, type Response } from 'playwright-core';

export const CHROMIUM = process.env.VULNINTEL_CHROMIUM ?? '/usr/bin/chromium';
export const ARTIFACTS = resolve(import.meta.dirname, '..', '..', 'test-artifacts', 'pulse');

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface RealBrowser {
  context: BrowserContext;
  /** `javaScript: false`: the page runs no script of its own (as a browser with JavaScript off). */
  newPage(opts?: { width?: number; height?: number; dark?: boolean; javaScript?: boolean }): Promise<Page>;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<RealBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's package "chromium" (apt-get install -y chromium), or set VULNINTEL_CHROMIUM.`);
  }
  const profile = await mkdtemp(join(tmpdir(), 'vulnintel-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: ARGS,
    headless: true,
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    async newPage(opts = {}) {
      const page = await context.newPage();
      await page.setViewportSize({ width: opts.width ?? 1280, height: opts.height ?? 900 });
      if (opts.dark) await page.emulateMedia({ colorScheme: 'dark' });
      // What Playwright's javaScriptEnabled: false does, for one page of the shared profile.
      if (opts.javaScript === false) await (await context.newCDPSession(page)).send('Emulation.setScriptExecutionDisabled', { value: true });
      return page;
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Does what sends the page elsewhere (a form's button, a link) and resolves once the page it
 * leads to has loaded, with the answer `isAnswer` picks when given. Waiting for the answer
 * alone (or for a URL the page already had) raced the navigation: reads could see the page
 * before, and a page closed while Chromium committed the new one never closed
 * (microsoft/playwright#42068), a test timed out in CI.
 */
export async function navigateBy(page: Page, action: () => Promise<unknown>): Promise<void>;
export async function navigateBy(page: Page, action: () => Promise<unknown>, isAnswer: (response: Response) => boolean): Promise<Response>;
export async function navigateBy(page: Page, action: () => Promise<unknown>, isAnswer?: (response: Response) => boolean): Promise<Response | void> {
  const [answer] = await Promise.all([isAnswer ? page.waitForResponse(isAnswer) : undefined, page.waitForEvent('load'), action()]);
  return answer;
}

/** A full-page screenshot kept as a test artifact (test-artifacts/pulse/NAME.png). */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; html: string }[];
}

/**
 * Runs axe-core in the page (its source evaluated through the DevTools protocol, which the
 * page's Content-Security-Policy does not govern) and returns the serious and critical
 * violations.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  const result = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] })`)) as { violations: AxeViolation[] };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => ({ target: n.target, html: n.html.slice(0, 200) })) }));
}

/** How many pixels the page is wider than its window (0 or less: no horizontal scrolling). */
export async function widerThanWindow(page: Page): Promise<number> {
  return Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
}

/**
 * Elements of the page whose content spills out of their own box (wider than it, with overflow
 * left visible): text drawn over a panel's border or outside it, which no page-width check
 * sees. Scrolling containers (overflow other than visible) and inline boxes are not counted.
 */
export async function spillingElements(page: Page): Promise<string[]> {
  // A script text, as the other in-page checks: the project's types have no DOM.
  return (await page.evaluate(`(() => {
    const found = [];
    for (const el of document.querySelectorAll('body *')) {
      const style = getComputedStyle(el);
      if (style.display === 'inline' || style.display === 'none' || style.overflowX !== 'visible' || el.clientWidth === 0) continue;
      const spill = el.scrollWidth - el.clientWidth;
      if (spill > 1) found.push(el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).replace(/ /g, '.') : '') + ' by ' + spill + 'px: ' + (el.textContent || '').trim().slice(0, 60));
    }
    return found;
  })()`)) as string[];
}

/**
 * Selects whose choices do not fit their box ("NVD's CVSS v3 la…", "Newest publishec"): each
 * option's text, in the select's font, against the box's width less its padding and arrow.
 */
export async function selectsCutOff(page: Page): Promise<string[]> {
  return (await page.evaluate(`(() => {
    const found = [];
    const canvas = document.createElement('canvas').getContext('2d');
    for (const select of document.querySelectorAll('main select')) {
      const style = getComputedStyle(select);
      if (select.clientWidth === 0) continue;
      canvas.font = style.font;
      const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
      for (const option of select.options) {
        const width = canvas.measureText(option.textContent.trim()).width;
        if (width > room) found.push('#' + select.id + ': "' + option.textContent.trim() + '" needs ' + Math.ceil(width) + 'px, has ' + Math.floor(room) + 'px');
      }
    }
    return found;
  })()`)) as string[];
}

/**
 * Words of a table (its cells, on a phone its cards too) drawn over more than one line:
 * "Servic" over "e", "CRITICA" over "L", "0ubuntu1.1" over "8", "daily:2026-11-" over "22". A
 * word is a run of non-space characters; a break right after a slash, or after a hyphen before
 * a letter, is a break between two words ("cisco-sa-" over "asaftd", "…/PR:L/" over "UI:N…");
 * any other is a word broken in its middle (a hyphen before a digit is inside a date, a
 * version or an id).
 */
export async function wordsBrokenMidWord(page: Page): Promise<string[]> {
  return (await page.evaluate(`(() => {
    const found = [];
    const walker = document.createTreeWalker(document.querySelector('main') || document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.parentElement || !node.parentElement.closest('td, th')) continue;
      const text = node.textContent || '';
      for (const m of text.matchAll(/(?:[^\\s\\/-]|-(?![A-Za-z]))+(?:\\/|-(?=[A-Za-z]))?/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].replace(/[\\/-]$/, '').length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (lines.size > 1) found.push(m[0] + ' (in "' + text.trim().slice(0, 50) + '") over ' + lines.size + ' lines');
      }
    }
    return found;
  })()`)) as string[];
}

/**
 * CVE ids (the links to a CVE page, the ids in a list) and dates (`.date`: table cells, the
 * published day of a CVE list's line) drawn over more than one line: broken at a hyphen,
 * `CVE-2024-` over `3400` reads as two values.
 */
export async function valuesBrokenOverLines(page: Page): Promise<string[]> {
  return (await page.evaluate(`(() => {
    const found = [];
    for (const el of document.querySelectorAll('a[href^="/pulse/cves/"], .cve-id, .date')) {
      const range = document.createRange();
      range.selectNodeContents(el);
      const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (lines.size > 1) found.push((el.textContent || '').trim() + ' over ' + lines.size + ' lines');
    }
    return found;
  })()`)) as string[];
}

/**
 * CVSS vectors (the `code` of a vector panel, an advisory's) whose parts are drawn over more
 * than one line: a vector may break after a slash ("…/PR:L/" over "UI:N/…"), but "I" over
 * ":H/A:H" splits a metric from its value.
 */
export async function vectorsBrokenMidPart(page: Page): Promise<string[]> {
  return (await page.evaluate(`(() => {
    const found = [];
    for (const code of document.querySelectorAll('main code')) {
      if (!/^(CVSS:|AV:)/.test((code.textContent || '').trim())) continue;
      const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const m of (node.textContent || '').matchAll(/[^\\/]+/g)) {
          const range = document.createRange();
          range.setStart(node, m.index);
          range.setEnd(node, m.index + m[0].length);
          const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
          if (lines.size > 1) found.push(m[0] + ' (in "' + (code.textContent || '').trim() + '") over ' + lines.size + ' lines');
        }
      }
    }
    return found;
  })()`)) as string[];
}
