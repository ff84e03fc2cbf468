/**
 * The API's docs page (`/api/v1/docs`) in real Chromium, under the Content-Security-Policy it is
 * served with: its inline script and stylesheet are allowed by their hashes, so the page renders
 * the document (endpoints, schemas) and the browser reports no refusal; anything else inline, a
 * script or style injected into the page, is refused; no other site can frame it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot, type RealBrowser } from '../pulse/browser.ts';
import { startSampleServer, type SampleServer } from './server-harness.ts';

let s: SampleServer;
let browser: RealBrowser;

beforeAll(async () => {
  s = await startSampleServer();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await s?.server.close();
});

describe('/api/v1/docs under its Content-Security-Policy', () => {
  it('is served with a policy that allows only its own inline script and stylesheet, and no framing', async () => {
    const res = await s.get('/api/v1/docs');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*';/);
    expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/]+=*';/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(await res.text()).not.toMatch(/ style="/);
  });

  it('renders the document in Chromium with nothing refused, styled', async () => {
    const page = await browser.newPage();
    const refused: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) refused.push(m.text());
    });
    await page.goto(`${s.base}/api/v1/docs`);
    await page.locator('main details').first().waitFor();
    expect(await page.locator('main details').count()).toBeGreaterThan(10);
    expect(await page.locator('#intro').textContent()).not.toBe('');
    // The stylesheet applies: the header is the dark band it sets.
    // (Strings run in the page: this project's TypeScript has no DOM types.)
    expect(await page.evaluate(`getComputedStyle(document.querySelector('header')).backgroundColor`)).toBe('rgb(29, 35, 48)');
    expect(await page.evaluate(`getComputedStyle(document.querySelector('header a')).color`)).toBe('rgb(156, 194, 255)');
    await screenshot(page, 'api-docs');
    expect(refused).toEqual([]);

    // An inline script that is not the page's own is refused.
    const ran = await page.evaluate(`(async () => {
      const script = document.createElement('script');
      script.textContent = 'window.injected = true;';
      document.body.append(script);
      await new Promise((r) => setTimeout(r, 50));
      return window.injected === true;
    })()`);
    expect(ran).toBe(false);
    await page.close();
  });
});
