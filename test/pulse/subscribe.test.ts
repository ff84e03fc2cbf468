/**
 * The subscribe flow end to end in Chromium, against a real `vulnintel serve` with a pulse
 * store and a real local SMTP server (`smtp-server`): the filter built on /pulse/subscribe (with
 * a preview from the change history), the form posted, the confirmation mail received, its link
 * opened in the browser and confirmed, the manage page showing the subscription, an edit and a
 * pause through its forms, and the unsubscribe button deleting it. The pages pass axe-core.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { startServer, type RunningServer } from '../../api/server.ts';
import { buildChangesCorpus } from '../helpers/changes-corpus.ts';
import { hashToken } from '../../lib/pulse/tokens.ts';
import { launchChromium, navigateBy, screenshot, selectsCutOff, seriousAxeViolations, spillingElements, valuesBrokenOverLines, widerThanWindow, wordsBrokenMidWord, type RealBrowser } from './browser.ts';
import { startSmtpSink, startWebhookReceiver, type SmtpSink, type WebhookReceiver } from './sinks.ts';

const PUBLIC = 'https://alerts.example.org';
let server: RunningServer;
let smtp: SmtpSink;
let hooks: WebhookReceiver;
let browser: RealBrowser;
let corpusDir: string;

beforeAll(async () => {
  const corpus = await buildChangesCorpus();
  corpusDir = corpus.dataDir;
  smtp = await startSmtpSink();
  hooks = await startWebhookReceiver();
  server = await startServer({
    dataDir: corpus.dataDir,
    host: '127.0.0.1',
    port: 0,
    rateLimit: false,
    logger: pino({ level: 'silent' }),
    snapshot: { threads: 1, memoryLimit: '512MB', poolSize: 2 },
    // The webhook receiver listens on 127.0.0.1. Every test subscribes from 127.0.0.1: more
    // than the 10 an hour one caller may create by default.
    pulse: { smtp: smtp.url, publicUrl: PUBLIC, pulseAllowPrivateWebhooks: true, limits: { createsPerCallerPerHour: 100 } },
  });
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await smtp?.close();
  await hooks?.close();
});

/** The mails sent to an address so far, once the first has arrived. */
async function mailsTo(address: string): Promise<number> {
  for (let i = 0; i < 50 && smtp.to(address).length === 0; i++) await new Promise((r) => setTimeout(r, 100));
  return smtp.to(address).length;
}

/** A confirmed e-mail subscription made through the JSON API; its manage token. */
async function confirmedSubscription(email: string, filter: Record<string, unknown>, cadence = 'daily'): Promise<string> {
  const created = await fetch(`${server.url}/pulse/api/subscriptions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ channel: 'email', email, cadence, filter }),
  });
  expect(created.status).toBe(201);
  expect(await mailsTo(email)).toBe(1);
  const confirmToken = /\/pulse\/confirm\/([A-Za-z0-9_-]{22})/.exec(smtp.to(email)[0]!.text ?? '')![1];
  const confirmed = (await (await fetch(`${server.url}/pulse/api/confirm/${confirmToken}`, { method: 'POST' })).json()) as { manage_url: string };
  return confirmed.manage_url.split('/').at(-1)!;
}

const local = (url: string) => `${server.url}${url.replace(PUBLIC, '')}`;

/**
 * The page as a user sees it, at the desktop width and at 375 px: no serious accessibility
 * violation, no text outside its box, no select whose choices are cut ("After each build with
 * r" on a desktop), nothing wider than a phone's screen; then a screenshot.
 */
async function checkLooks(page: import('playwright-core').Page, name: string): Promise<void> {
  expect(await seriousAxeViolations(page), name).toEqual([]);
  expect(await spillingElements(page), name).toEqual([]);
  expect(await selectsCutOff(page), name).toEqual([]);
  await screenshot(page, name);
  const desktop = page.viewportSize()!;
  await page.setViewportSize({ width: 375, height: 800 });
  expect(await spillingElements(page), `${name} at 375 px`).toEqual([]);
  expect(await widerThanWindow(page), `${name} at 375 px`).toBeLessThanOrEqual(0);
  expect(await selectsCutOff(page), `${name} at 375 px`).toEqual([]);
  await screenshot(page, `${name}-phone`);
  await page.setViewportSize(desktop);
}

describe('subscribing in the browser', () => {
  it('builds a filter, previews it, subscribes, confirms from the mail, manages and unsubscribes', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/pulse/subscribe`);
    await page.getByLabel('Vendor (a whole vendor)').fill('cisco');
    await Promise.all([page.waitForURL(/vendor=cisco/), page.getByRole('button', { name: 'Preview' }).click()]);
    // The preview is what the change feed holds for the filter over the last 30 days.
    const feed = (await (await fetch(`${server.url}/api/v1/public/changes?vendor=cisco&limit=200`)).json()) as { changes: { change_id: string }[] };
    expect(feed.changes.length).toBeGreaterThan(0);
    const previewed = await page.locator('#preview-list > li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-change-id')));
    expect(new Set(previewed)).toEqual(new Set(feed.changes.map((c) => c.change_id)));
    expect(await page.locator('#filter-summary').textContent()).toContain('vendor: cisco');
    await checkLooks(page, 'subscribe-preview');

    await page.getByLabel('E-mail address').fill('secops@example.org');
    await page.getByLabel('How often').selectOption('daily');
    await Promise.all([page.waitForURL(/\/pulse\/subscribed\//), page.getByRole('button', { name: 'Subscribe' }).click()]);
    expect(await page.locator('h1').textContent()).toBe('Check your mail');
    expect(await page.locator('#created').textContent()).toContain('secops@example.org');
    await checkLooks(page, 'subscribe-sent');

    await smtp.waitFor(1, 10_000);
    const mail = smtp.to('secops@example.org')[0]!;
    const link = /https:\/\/alerts\.example\.org\/pulse\/confirm\/[A-Za-z0-9_-]+/.exec(mail.text ?? '')?.[0];
    expect(link).toBeDefined();
    await page.goto(local(link!));
    await checkLooks(page, 'confirm');
    // Confirmed: redirected to the manage page (a reload is a GET), which says so and gives its link.
    await Promise.all([page.waitForURL(/\/pulse\/s\/[A-Za-z0-9_-]{22}\?done=confirmed$/), page.locator('#confirm').click()]);
    expect(await page.locator('#notice').textContent()).toContain('Subscription confirmed');
    const manage = await page.locator('#manage-link').getAttribute('href');
    expect(manage).toMatch(/\/pulse\/s\//);
    expect(page.url()).toBe(`${local(manage!)}?done=confirmed`);

    await page.goto(local(manage!));
    expect(await page.locator('#sub-address').textContent()).toBe('secops@example.org');
    // The cadence in the words of the form's select (it said "daily", the stored value).
    expect(await page.locator('#sub-cadence').textContent()).toBe('Daily digest');
    expect(await page.locator('#sub-cadence').getAttribute('data-cadence')).toBe('daily');
    expect(await page.locator('#sub-filter').textContent()).toContain('vendor cisco');
    expect(await page.locator('#sub-status').getAttribute('data-status')).toBe('active');
    await checkLooks(page, 'manage');

    // Edit: a lowest severity and a weekly digest, through the page's form.
    await page.locator('#m-min-severity').selectOption('HIGH');
    await page.locator('#m-cadence').selectOption('weekly');
    // Each form is answered by a redirect to the manage page (a GET: a reload posts nothing again).
    await Promise.all([page.waitForURL(/\?done=update$/), page.getByRole('button', { name: 'Save changes' }).click()]);
    expect(await page.locator('#notice').textContent()).toBe('Saved.');
    expect(await page.locator('#sub-cadence').textContent()).toBe(await page.locator('#m-cadence option:checked').textContent());
    expect(await page.locator('#sub-cadence').getAttribute('data-cadence')).toBe('weekly');
    expect(await page.locator('#sub-filter').textContent()).toContain('severity HIGH or higher');
    // Pause, then resume.
    await Promise.all([page.waitForURL(/\?done=pause$/), page.locator('#pause').click()]);
    expect(await page.locator('#sub-status').getAttribute('data-status')).toBe('paused');
    const reloaded = await page.reload();
    expect(reloaded?.request().method()).toBe('GET');
    expect(await page.locator('#sub-status').getAttribute('data-status')).toBe('paused');
    await Promise.all([page.waitForURL(/\?done=resume$/), page.locator('#resume').click()]);
    expect(await page.locator('#sub-status').getAttribute('data-status')).toBe('active');

    // Unsubscribe: the subscription is gone, the manage link is dead.
    await Promise.all([page.waitForURL(/\/pulse\/unsubscribed\?/), page.locator('#delete').click()]);
    expect(await page.locator('#unsubscribed').textContent()).toContain('deleted');
    await checkLooks(page, 'unsubscribed');
    // Back: the manage page again, by GET (it was ERR_CACHE_MISS, a POST's answer not kept), now a 404.
    const back = await page.goBack();
    expect(back?.request().method()).toBe('GET');
    expect(back?.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('Link not found');
    const after = await page.goto(local(manage!));
    expect(after?.status()).toBe(404);
    await page.close();
  }, 240_000);

  it('the feed link says whose filter it carries: every change before a preview, the previewed filter after (it offered "the same filter" of a form typed but not previewed, and led to every change)', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/pulse/subscribe`);
    await page.locator('#s-vendor').fill('cisco');
    expect(await page.locator('#feed-link').getAttribute('href')).toBe('/pulse/feeds/changes.atom');
    expect(await page.locator('#feed-offer').textContent()).toContain('Every change');
    await Promise.all([page.waitForURL(/preview=1/), page.getByRole('button', { name: 'Preview' }).click()]);
    expect(await page.locator('#feed-link').getAttribute('href')).toBe('/pulse/feeds/changes.atom?vendor=cisco');
    expect(await page.locator('#feed-offer').textContent()).toContain('The filter last previewed');
    await page.close();
  });

  it('a bad address is refused on the page, naming the field', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/pulse/subscribe?vendor=cisco`);
    await page.getByLabel('E-mail address').evaluate((el) => el.removeAttribute('type'));
    await page.getByLabel('E-mail address').fill('not-an-address');
    await navigateBy(page, () => page.getByRole('button', { name: 'Subscribe' }).click());
    expect(await page.locator('#notice').getAttribute('data-field')).toBe('email');
    expect(await page.locator('#notice').textContent()).toContain('email');
    await page.close();
  });

  it('subscribes with the filter on screen, previewed or not (a typed filter was dropped: everything was subscribed)', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/pulse/subscribe`);
    await page.getByLabel('Vendor (a whole vendor)').fill('cisco');
    await page.getByLabel('Known exploited (KEV) only').check();
    await page.getByLabel('E-mail address').fill('unpreviewed@example.org');
    await Promise.all([page.waitForURL(/\/pulse\/subscribed\//), page.getByRole('button', { name: 'Subscribe' }).click()]);
    expect(await page.locator('h1').textContent()).toBe('Check your mail');
    let mail = smtp.to('unpreviewed@example.org')[0];
    for (let i = 0; i < 50 && !mail; i++) {
      await new Promise((r) => setTimeout(r, 100));
      mail = smtp.to('unpreviewed@example.org')[0];
    }
    const link = /https:\/\/alerts\.example\.org\/pulse\/confirm\/[A-Za-z0-9_-]+/.exec(mail!.text ?? '')![0];
    await page.goto(local(link));
    await Promise.all([page.waitForURL(/done=confirmed$/), page.locator('#confirm').click()]);
    await page.goto(local((await page.locator('#manage-link').getAttribute('href'))!));
    const filter = await page.locator('#sub-filter').textContent();
    expect(filter).toBe('vendor cisco; known exploited only');
    await page.close();
  });

  it('a bad filter is refused on the page naming it, the form shown again as typed (it was a 500)', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/pulse/subscribe?vendor=cisco`);
    await page.getByLabel('E-mail address').fill('someone@example.org');
    // Free text in a number's field (a phone keyboard offers digits, nothing stops letters).
    await page.getByLabel('Lowest risk (0–100)').fill('abc');
    const answer = await navigateBy(page, () => page.getByRole('button', { name: 'Subscribe' }).click(), (r) => r.url().endsWith('/pulse/subscribe') && r.request().method() === 'POST');
    expect(answer.status()).toBe(400);
    expect(await page.title()).toBe('Not subscribed · Subscribe · vulnintel pulse');
    expect(await page.locator('#notice').getAttribute('data-field')).toBe('min_risk');
    expect(await page.locator('#subscribe-form [name="min_risk"]').inputValue()).toBe('abc');
    expect(await page.locator('#subscribe-form [name="vendor"]').inputValue()).toBe('cisco');
    // Marked where it is: invalid, its message beside it, the focus on it.
    const risk = page.locator('#s-min-risk');
    expect(await risk.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator(`#${await risk.getAttribute('aria-describedby')}`).textContent()).toContain('min_risk');
    expect(await page.evaluate('document.activeElement.id')).toBe('s-min-risk');
    // The channel's fields as typed too.
    expect(await page.locator('#s-email').inputValue()).toBe('someone@example.org');
    await page.close();
  });

  it('a refused Preview is not said to be previewed, nor offered as a feed (it read "last previewed: min risk: 150" under "Not previewed", and its feed link answered a 400)', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/pulse/subscribe`);
    await page.getByLabel('Vendor (a whole vendor)').fill('cisco');
    await page.getByLabel('Lowest risk (0–100)').fill('150');
    const answer = await navigateBy(page, () => page.getByRole('button', { name: 'Preview' }).click(), (r) => r.url().endsWith('/pulse/subscribe') && r.request().method() === 'POST');
    expect(answer.status()).toBe(400);
    expect(await page.locator('#notice h2').textContent()).toBe('Not previewed');
    expect(await page.title()).toBe('Not previewed · Subscribe · vulnintel pulse');
    expect(await page.locator('#filter-summary').textContent()).toBe('Subscribes with the filter of step 1 as it stands when you press Subscribe.');
    const feed = (await page.locator('#feed-link').getAttribute('href'))!;
    expect(feed).toBe('/pulse/feeds/changes.atom');
    expect((await fetch(`${server.url}${feed}`)).status).toBe(200);
    // The form still holds what was typed.
    expect(await page.locator('#s-min-risk').inputValue()).toBe('150');
    expect(await page.locator('#s-vendor').inputValue()).toBe('cisco');
    await page.close();
  });

  it('a refused Subscribe whose filter was taken previews it, as the page says ("last previewed: vendor: apache" stood over "press Preview to see what it would have sent")', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/pulse/subscribe`);
    await page.getByLabel('Vendor (a whole vendor)').fill('apache');
    await page.getByLabel('E-mail address').evaluate((el) => el.removeAttribute('type'));
    await page.getByLabel('E-mail address').fill('not-an-address');
    const answer = await navigateBy(page, () => page.getByRole('button', { name: 'Subscribe' }).click(), (r) => r.url().endsWith('/pulse/subscribe') && r.request().method() === 'POST');
    expect(answer.status()).toBe(400);
    expect(await page.locator('#notice').getAttribute('data-field')).toBe('email');
    expect(await page.locator('#filter-summary').textContent()).toContain('last previewed: vendor: apache');
    // The preview of that filter, as /pulse/subscribe?vendor=apache shows it.
    const preview = await page.locator('#preview').innerHTML();
    const previewed = await browser.newPage();
    await previewed.goto(`${server.url}/pulse/subscribe?vendor=apache`);
    expect(Number(await previewed.locator('#preview').getAttribute('data-count'))).toBeGreaterThan(0);
    expect(preview).toBe(await previewed.locator('#preview').innerHTML());
    await previewed.close();
    await page.close();
  });

  it('a reload after Subscribe shows the same page and sends no second mail (the POST was answered directly: reloading it subscribed again)', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/pulse/subscribe?vendor=cisco`);
    await page.getByLabel('E-mail address').fill('reload@example.org');
    await navigateBy(page, () => page.getByRole('button', { name: 'Subscribe' }).click(), (r) => r.request().method() === 'POST');
    await expect.poll(() => page.locator('h1').textContent()).toBe('Check your mail');
    expect(await mailsTo('reload@example.org')).toBe(1);
    const reloaded = await page.reload();
    await new Promise((r) => setTimeout(r, 500));
    expect(smtp.to('reload@example.org').length).toBe(1);
    expect(reloaded?.request().method()).toBe('GET');
    expect(page.url()).toMatch(/\/pulse\/subscribed\/[A-Za-z0-9_-]{22}$/);
    expect(await page.locator('h1').textContent()).toBe('Check your mail');
    expect(await page.locator('#created').textContent()).toContain('reload@example.org');
    // Back is the preview page's GET, forward this page again: nothing is posted twice.
    expect((await page.goBack())?.request().method()).toBe('GET');
    expect((await page.goForward())?.request().method()).toBe('GET');
    await new Promise((r) => setTimeout(r, 500));
    expect(smtp.to('reload@example.org').length).toBe(1);
    await page.close();
  });

  it('a webhook\'s secret and manage link are shown once: a reload shows them no more, and pings and creates nothing', async () => {
    const path = '/hook-once';
    const page = await browser.newPage();
    await page.goto(`${server.url}/pulse/subscribe?vendor=cisco`);
    await page.getByLabel('Webhook (Slack, Teams or your own endpoint)').check();
    await page.getByLabel('Webhook URL').fill(hooks.url(path));
    await navigateBy(page, () => page.getByRole('button', { name: 'Subscribe' }).click(), (r) => r.request().method() === 'POST');
    await expect.poll(() => page.locator('h1').textContent()).toBe('Webhook subscribed');
    const secret = (await page.locator('#secret').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    const manage = (await page.locator('[href*="/pulse/s/"]').first().getAttribute('href'))!;
    expect(manage).toMatch(/\/pulse\/s\/[A-Za-z0-9_-]{22}$/);
    expect(hooks.on(path).length).toBe(1);
    await checkLooks(page, 'subscribed-webhook');

    const reloaded = await page.reload();
    // No second ping, no second webhook (a reload posted the form again: a new secret).
    expect(hooks.on(path).length).toBe(1);
    expect(reloaded?.request().method()).toBe('GET');
    expect(await page.locator('h1').textContent()).toBe('Webhook subscribed');
    expect(await page.locator('#created').getAttribute('data-shown-already')).toBe('true');
    const html = await page.content();
    expect(html).not.toContain(secret);
    expect(html).not.toContain(manage.split('/').at(-1)!);
    expect(hooks.on(path).length).toBe(1);
    // The one subscription is the one shown: its manage link opens it.
    await page.goto(local(manage));
    expect(await page.locator('#sub-address').textContent()).toBe(hooks.url(path));
    await page.close();
  });

  it('a link\'s kev_only=1 and kinds in capitals are ticked in the form, and Preview keeps them (the boxes showed unticked over a preview filtered by them, and were dropped)', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/pulse/subscribe?vendor=cisco&kev_only=1&kind=KEV_ADDED,New_Advisory&preview=1`);
    expect(await page.locator('#s-kev-only').isChecked()).toBe(true);
    const ticked = await page.locator('#s-kinds input[name="kind"]:checked').evaluateAll((boxes) => boxes.map((b) => b.getAttribute('value')));
    expect(ticked).toEqual(['new_advisory', 'kev_added']);
    await Promise.all([page.waitForURL(/kev_only=true/), page.getByRole('button', { name: 'Preview' }).click()]);
    const query = new URL(page.url()).searchParams;
    expect(query.get('kev_only')).toBe('true');
    expect(query.get('kind')).toBe('new_advisory,kev_added');
    expect(await page.locator('#s-kev-only').isChecked()).toBe(true);
    await page.close();
  });

  it('a HEAD of the page that shows a webhook\'s secret once takes nothing: the GET after it shows the secret (a HEAD took it, the page then said it was shown)', async () => {
    const path = '/hook-head';
    const posted = await fetch(`${server.url}/pulse/subscribe`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ vendor: 'cisco', channel: 'webhook', url: hooks.url(path), cadence: 'daily', intent: 'subscribe' }).toString(),
    });
    expect(posted.status).toBe(303);
    const page = `${server.url}${posted.headers.get('location')!}`;
    expect(page).toMatch(/\/pulse\/subscribed\/[A-Za-z0-9_-]{22}$/);
    const head = await fetch(page, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const get = await fetch(page);
    const html = await get.text();
    // The HEAD carried the headers of the GET that shows the secret.
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
    expect(html).toMatch(/whsec_[A-Za-z0-9_-]+/);
    expect(html).not.toContain('data-shown-already');
    // Once: the GET took it.
    expect(await (await fetch(page)).text()).toContain('data-shown-already="true"');
  });

  it('Preview keeps the channel\'s fields out of the URL, and on the page (they went into the address bar and a cacheable URL, and were lost)', async () => {
    const slack = 'https://hooks.slack.com/services/T0000/B0000/XXXXXXXXsecretXXXX';
    const page = await browser.newPage();
    await page.goto(`${server.url}/pulse/subscribe`);
    await page.getByLabel('Vendor (a whole vendor)').fill('cisco');
    await page.getByLabel('E-mail address').fill('keep@example.org');
    await page.getByLabel('Webhook (Slack, Teams or your own endpoint)').check();
    await page.getByLabel('Webhook URL').fill(slack);
    await page.getByLabel('How often').selectOption('weekly');
    const answer = await navigateBy(page, () => page.getByRole('button', { name: 'Preview' }).click(), (r) => r.url().includes('preview=1') && r.request().method() === 'GET');
    const url = page.url();
    expect(url).toContain('vendor=cisco');
    for (const leak of ['keep', 'slack', 'secret', 'email=', 'url=', 'cadence=']) expect(url, leak).not.toContain(leak);
    // The page that holds them is kept by no cache and sent to no other site as a Referer.
    expect(answer.headers()['cache-control']).toBe('no-store');
    expect(answer.headers()['referrer-policy']).toBe('no-referrer');
    expect(await page.locator('#preview-list > li').count()).toBeGreaterThan(0);
    expect(await page.getByLabel('E-mail address').inputValue()).toBe('keep@example.org');
    expect(await page.getByLabel('Webhook URL').inputValue()).toBe(slack);
    expect(await page.getByLabel('Webhook (Slack, Teams or your own endpoint)').isChecked()).toBe(true);
    expect(await page.getByLabel('How often').inputValue()).toBe('weekly');
    // A preview of the filter alone (nothing typed below) is a plain, shareable URL.
    const plain = await fetch(`${server.url}/pulse/subscribe`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'vendor=cisco&intent=preview&channel=email&email=&url=&cadence=realtime',
      redirect: 'manual',
    });
    expect(plain.status).toBe(303);
    expect(plain.headers.get('location')).toBe('/pulse/subscribe?vendor=cisco&preview=1#preview-h');
    await page.close();
  });

  it('a refused webhook keeps everything typed and marks the URL where it is (the URL, cadence and channel were reset, the message at the top only)', async () => {
    const path = '/hook-refuses';
    hooks.respond(path, [500]);
    const page = await browser.newPage();
    await page.goto(`${server.url}/pulse/subscribe?vendor=cisco`);
    await page.getByLabel('Webhook (Slack, Teams or your own endpoint)').check();
    await page.getByLabel('Webhook URL').fill(hooks.url(path));
    await page.getByLabel('How often').selectOption('daily');
    const answer = await navigateBy(page, () => page.getByRole('button', { name: 'Subscribe' }).click(), (r) => r.url().endsWith('/pulse/subscribe') && r.request().method() === 'POST');
    expect(answer.status()).toBe(400);
    expect(await page.getByLabel('Webhook URL').inputValue()).toBe(hooks.url(path));
    expect(await page.getByLabel('Webhook (Slack, Teams or your own endpoint)').isChecked()).toBe(true);
    expect(await page.getByLabel('How often').inputValue()).toBe('daily');
    expect(await page.getByLabel('Vendor (a whole vendor)').inputValue()).toBe('cisco');
    const url = page.locator('#s-url');
    expect(await url.getAttribute('aria-invalid')).toBe('true');
    const described = page.locator(`#${await url.getAttribute('aria-describedby')}`);
    expect(await described.textContent()).toContain('ping');
    // The message is by the field: in the field's own box, between its label and the input.
    expect(await described.evaluate((el) => el.nextElementSibling?.id)).toBe('s-url');
    expect(await page.evaluate('document.activeElement.id')).toBe('s-url');
    await checkLooks(page, 'subscribe-refused');
    await page.close();
  });

  it('a refused edit on the manage page keeps what was typed and marks the field (min_risk=abc discarded every change)', async () => {
    const token = await confirmedSubscription('edit@example.org', { vendor: 'cisco' });
    const page = await browser.newPage();
    await page.goto(`${server.url}/pulse/s/${token}`);
    await page.locator('#m-vendor').fill('juniper');
    await page.locator('#m-min-risk').fill('abc');
    await page.locator('#m-cadence').selectOption('weekly');
    const answer = await navigateBy(page, () => page.getByRole('button', { name: 'Save changes' }).click(), (r) => r.request().method() === 'POST');
    expect(answer.status()).toBe(400);
    // Said in the title too (it read "Your subscription", as if saved).
    expect(await page.title()).toBe('Not changed · Your subscription · vulnintel pulse');
    expect(await page.locator('#m-vendor').inputValue()).toBe('juniper');
    expect(await page.locator('#m-min-risk').inputValue()).toBe('abc');
    expect(await page.locator('#m-cadence').inputValue()).toBe('weekly');
    const risk = page.locator('#m-min-risk');
    expect(await risk.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator(`#${await risk.getAttribute('aria-describedby')}`).textContent()).toContain('min_risk');
    expect(await page.evaluate('document.activeElement.id')).toBe('m-min-risk');
    // Nothing was saved.
    expect(await page.locator('#sub-filter').textContent()).toBe('vendor cisco');
    expect(await page.locator('#sub-cadence').getAttribute('data-cadence')).toBe('daily');
    await checkLooks(page, 'manage-refused');
    await page.close();
  });

  it('a refused "Known exploited only" on the manage page is reached by a link naming it, "Go to Known exploited only" (the link named no element, then read "Go to the field", as the subscribe page\'s names its field: WCAG 2.4.4)', async () => {
    const token = await confirmedSubscription('kev-edit@example.org', { vendor: 'cisco' });
    const page = await browser.newPage();
    await page.goto(`${server.url}/pulse/s/${token}`);
    // The form sends only "true"; a value it cannot send stands for any the service refuses.
    const kev = page.getByRole('checkbox', { name: 'Known exploited (KEV) only' });
    await kev.evaluate((input) => ((input as unknown as { value: string }).value = 'maybe'));
    await kev.check();
    const answer = await navigateBy(page, () => page.getByRole('button', { name: 'Save changes' }).click(), (r) => r.request().method() === 'POST');
    expect(answer.status()).toBe(400);
    expect(await page.locator('#notice').getAttribute('data-field')).toBe('kev_only');
    const target = await page.getByRole('link', { name: 'Go to Known exploited only', exact: true }).getAttribute('href');
    expect(await page.locator(target!).count(), target!).toBe(1);
    expect(await page.locator(target!).getAttribute('aria-invalid')).toBe('true');
    await page.close();
  });
});

/** The values a datalist offers, in order. */
function offered(page: import('playwright-core').Page, list: string): Promise<string[]> {
  return page.locator(`${list} option`).evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value));
}

describe('Enter in the subscribe form', () => {
  // Every field where Enter submits a form (text, e-mail, URL); the choices (boxes, radios, selects) after them.
  const TEXT_FIELDS = ['s-vendor', 's-product', 's-ecosystem', 's-package', 's-cwe', 's-search', 's-min-risk', 's-email', 's-url'];

  for (const javaScript of [true, false]) {
    it(`submits with the form's default button from every field, ${javaScript ? 'with' : 'without'} JavaScript (it was Preview, the form's first button: Enter in the e-mail address previewed)`, async () => {
      const page = await browser.newPage({ javaScript });
      await page.goto(`${server.url}/pulse/subscribe?vendor=cisco`);
      // Scripts on or off as said: pulse.js asks for suggestions as a field is typed in, or not.
      let suggestions = 0;
      page.on('request', (r) => void (r.url().includes('/pulse/suggest?') && suggestions++));
      await page.locator('#s-cwe').pressSequentially('CWE');
      await expect.poll(() => suggestions, { timeout: 2_000 }).toBeGreaterThan(0).catch(() => undefined);
      expect(suggestions > 0).toBe(javaScript);
      // Each submission's intent, answered 204 (the page stays, nothing is created).
      const intents: string[] = [];
      await page.route(`${server.url}/pulse/subscribe`, (route) => {
        if (route.request().method() !== 'POST') return route.continue();
        intents.push(new URLSearchParams(route.request().postData() ?? '').get('intent') ?? '(none)');
        return route.fulfill({ status: 204 });
      });
      for (const [i, id] of TEXT_FIELDS.entries()) {
        await page.locator(`#${id}`).press('Enter');
        await expect.poll(() => intents.length, { message: id }).toBe(i + 1);
        expect(intents[i], id).toBe('enter');
      }
      for (const choice of await page.locator('#subscribe-form input:not([type="text"], [type="email"], [type="url"]), #subscribe-form select').all()) await choice.press('Enter');
      await new Promise((r) => setTimeout(r, 500));
      expect(new Set(intents)).toEqual(new Set(['enter']));
      await page.close();
    });
  }

  it('before an address is typed, previews the filter (nothing to subscribe yet)', async () => {
    for (const javaScript of [true, false]) {
      const page = await browser.newPage({ javaScript });
      await page.goto(`${server.url}/pulse/subscribe`);
      await page.getByLabel('Vendor (a whole vendor)').fill('cisco');
      await navigateBy(page, () => page.getByLabel('Vendor (a whole vendor)').press('Enter'));
      expect(page.url(), `JavaScript ${javaScript}`).toMatch(/\/pulse\/subscribe\?vendor=cisco&preview=1#preview-h$/);
      expect(await page.locator('.notice, [role="alert"]').count()).toBe(0);
      await page.close();
    }
  });

  it('in the e-mail address subscribes it (JavaScript on), in the webhook URL the webhook (JavaScript off)', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/pulse/subscribe`);
    await page.getByLabel('Vendor (a whole vendor)').fill('cisco');
    await page.getByLabel('E-mail address').fill('enter@example.org');
    await navigateBy(page, () => page.getByLabel('E-mail address').press('Enter'));
    expect(page.url()).toMatch(/\/pulse\/subscribed\/[A-Za-z0-9_-]{22}$/);
    expect(await page.locator('h1').textContent()).toBe('Check your mail');
    expect(await mailsTo('enter@example.org')).toBe(1);
    await page.close();

    const noScript = await browser.newPage({ javaScript: false });
    await noScript.goto(`${server.url}/pulse/subscribe?vendor=cisco`);
    await noScript.getByLabel('Webhook (Slack, Teams or your own endpoint)').check();
    await noScript.getByLabel('Webhook URL').fill(hooks.url('/hook-enter'));
    await navigateBy(noScript, () => noScript.getByLabel('Webhook URL').press('Enter'));
    expect(await noScript.locator('h1').textContent()).toBe('Webhook subscribed');
    await screenshot(noScript, 'subscribe-enter-webhook');
    await noScript.close();
  });

  it('leaves Preview where it was, one Subscribe and one Preview button, in a sensible Tab order', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/pulse/subscribe?vendor=cisco&preview=1`);
    // One of each for a screen reader (the default button Enter uses is hidden from it).
    expect(await page.getByRole('button', { name: 'Subscribe' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Preview' }).count()).toBe(1);
    // Preview right after the filter's fields, Subscribe after the channel's; nothing unseen.
    await page.locator('#s-vendor').focus();
    const order: string[] = [];
    for (let i = 0; i < 60; i++) {
      const at = (await page.evaluate(`(() => {
        const el = document.activeElement;
        if (!el || !el.closest('#subscribe-form')) return null;
        const box = el.getBoundingClientRect();
        return (el.id || el.tagName.toLowerCase() + ':' + el.textContent.trim()) + (box.width < 2 || box.height < 2 || el.closest('[aria-hidden="true"]') ? ' (unseen)' : '');
      })()`)) as string | null;
      if (at === null) break;
      order.push(at);
      await page.keyboard.press('Tab');
    }
    expect(order.filter((o) => o.includes('(unseen)'))).toEqual([]);
    const preview = order.indexOf('button:Preview');
    const subscribe = order.indexOf('button:Subscribe');
    expect(preview).toBeGreaterThan(order.indexOf('s-min-risk'));
    expect(preview).toBeLessThan(order.indexOf('s-channel-email'));
    expect(subscribe).toBe(order.length - 1);
    expect(subscribe).toBeGreaterThan(order.indexOf('s-cadence'));
    // Shift+Tab from the first field leaves the form (no button before it).
    await page.locator('#s-vendor').focus();
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(`!!document.activeElement.closest('#subscribe-form')`)).toBe(false);
    await checkLooks(page, 'subscribe-enter');
    await page.close();
  });
});

describe('suggestions as typed (pulse.js)', () => {
  it('fill a field\'s list from /pulse/suggest', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/pulse/subscribe`);
    const answered = page.waitForResponse((r) => r.url().includes('/pulse/suggest?'));
    await page.locator('#s-vendor').pressSequentially('cis');
    const body = (await (await answered).json()) as { values: { value: string }[] };
    expect(body.values.map((v) => v.value)).toContain('cisco');
    await expect.poll(() => offered(page, '#s-vendor-list')).toEqual(body.values.map((v) => v.value));
    await page.close();
  });

  it('show the answer for the latest text: a slow answer for "ci" does not replace the one for "cisco" (it did)', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/pulse/subscribe`);
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let lateHandled!: Promise<void>;
    const qOf = (url: string) => new URL(url).searchParams.get('q');
    await page.route(/\/pulse\/suggest\?/, async (route) => {
      const q = qOf(route.request().url());
      const answer = () => route.fulfill({ contentType: 'application/json', body: JSON.stringify({ field: 'vendor', values: [{ value: `${q}-answer`, label: `for ${q}` }] }) }).catch(() => {});
      if (q !== 'ci') return answer();
      // The first request answered late, after the second's answer is shown.
      lateHandled = released.then(answer);
      return lateHandled;
    });
    const vendor = page.locator('#s-vendor');
    await Promise.all([page.waitForRequest((r) => r.url().includes('/pulse/suggest?') && qOf(r.url()) === 'ci'), vendor.pressSequentially('ci')]);
    await Promise.all([page.waitForResponse((r) => r.url().includes('/pulse/suggest?') && qOf(r.url()) === 'cisco'), vendor.pressSequentially('sco')]);
    await expect.poll(() => offered(page, '#s-vendor-list')).toEqual(['cisco-answer']);
    release();
    await lateHandled;
    await new Promise((r) => setTimeout(r, 500));
    expect(await offered(page, '#s-vendor-list')).toEqual(['cisco-answer']);
    await page.close();
  });

  it('offer the products of the vendor now in the form (they stayed those of the vendor typed first)', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/pulse/subscribe`);
    await page.route(/\/pulse\/suggest\?/, (route) => {
      const sent = new URL(route.request().url()).searchParams;
      const value = `${sent.get('scope') ?? '(none)'}/${sent.get('q')}`;
      return route.fulfill({ contentType: 'application/json', body: JSON.stringify({ field: sent.get('field'), values: [{ value, label: value }] }) });
    });
    await page.locator('#s-vendor').fill('cisco');
    await page.locator('#s-product').pressSequentially('asa');
    await expect.poll(() => offered(page, '#s-product-list')).toEqual(['cisco/asa']);
    await page.locator('#s-vendor').fill('apache');
    await expect.poll(() => offered(page, '#s-product-list')).toEqual(['apache/asa']);
    // Typing on in the product asks for that vendor's.
    await page.locator('#s-product').press('End');
    await page.locator('#s-product').pressSequentially('x');
    await expect.poll(() => offered(page, '#s-product-list')).toEqual(['apache/asax']);
    await page.close();
  });
});

describe('a server that sends no mail (no --smtp)', () => {
  it('offers the webhook channel only and says why, and a form posted with e-mail anyway is refused there (it offered an e-mail choice it could only refuse)', async () => {
    const noMail = await startServer({
      dataDir: corpusDir,
      host: '127.0.0.1',
      port: 0,
      rateLimit: false,
      logger: pino({ level: 'silent' }),
      snapshot: { threads: 1, memoryLimit: '512MB', poolSize: 2 },
      pulse: { publicUrl: PUBLIC, pulseAllowPrivateWebhooks: true, pulseDb: `${corpusDir}/pulse-nomail.db` },
    });
    const page = await browser.newPage();
    try {
      await page.goto(`${noMail.url}/pulse/subscribe?vendor=cisco`);
      expect(await page.getByLabel('E-mail address').count()).toBe(0);
      expect(await page.locator('input[name="channel"]').evaluateAll((radios) => radios.map((r) => [(r as unknown as { value: string }).value, (r as unknown as { checked: boolean }).checked]))).toEqual([['webhook', true]]);
      expect(await page.locator('#s-no-email').textContent()).toContain('This server sends no e-mail');
      await checkLooks(page, 'subscribe-no-mail');
      // A form posted with the e-mail channel anyway (an old page, a script): refused on the page,
      // its "Go to the field" link reaching the channel shown.
      const answer = await page.evaluate(async (url) => {
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'intent=subscribe&channel=email&email=ops%40example.org&cadence=realtime&vendor=cisco' });
        return { status: res.status, html: await res.text() };
      }, `${noMail.url}/pulse/subscribe`);
      expect(answer.status).toBe(400);
      expect(answer.html).not.toContain('name="email"');
      expect(answer.html).toContain('href="#s-channel-webhook"');
    } finally {
      await page.close();
      await noMail.close();
    }
  });
});

describe('tables of text on a phone and on a desktop', () => {
  it('keep every word whole: a CVE\'s change history, the top changes, the advisories and the manage page\'s deliveries ("Servic/e", "MEDIU/M", "CRITICA/L")', async () => {
    // A CVE with the most recorded changes, for a change history of several rows.
    const changes = (await (await fetch(`${server.url}/api/v1/public/changes?limit=200`)).json()) as { changes: { cve_id: string | null }[] };
    const perCve = new Map<string, number>();
    for (const c of changes.changes) if (c.cve_id) perCve.set(c.cve_id, (perCve.get(c.cve_id) ?? 0) + 1);
    const busiest = [...perCve].sort((a, b) => b[1] - a[1])[0]![0];

    // A confirmed subscription with deliveries of each outcome, written to its ledger.
    const manageToken = await confirmedSubscription('ledger@example.org', { vendor: 'cisco' });
    const store = server.pulse!.store;
    const subscription = (await store.subscriptionByToken(hashToken(manageToken), 'manage', new Date().toISOString()))!;
    const day = (d: number) => `2026-11-${String(d).padStart(2, '0')}`;
    for (const [n, outcome] of [
      [20, 'sent'],
      [21, 'failed'],
      [22, 'abandoned'],
    ] as const) {
      const at = `${day(n)}T08:00:00.000Z`;
      const rangeFrom = `${day(n - 1)}T08:00:00.000Z`;
      // A ledger row is written only from the subscription's cursor.
      await store.updateSubscription(subscription.id, { cursorAt: rangeFrom }, at);
      const begun = (await store.beginDelivery({ id: `d-${n}`, subscriptionId: subscription.id, periodKey: `daily:${day(n)}`, rangeFrom, rangeTo: at, items: n, at }))!;
      const error = 'SMTP 451 4.3.0 Temporary lookup failure for recipient mailbox: MEDIUM-priority queue full';
      await store.finishDelivery(
        begun.id,
        outcome === 'sent'
          ? { status: 'sent', at, cursorAt: at, lastPeriod: `daily:${day(n)}` }
          : outcome === 'failed'
            ? { status: 'failed', at, error, nextAttemptAt: `${day(n)}T09:00:00.000Z` }
            : { status: 'abandoned', at, error, cursorAt: at, lastPeriod: `daily:${day(n)}`, pauseReason: null },
      );
    }

    const pages: [string, string, string][] = [
      ['cve-history', `/pulse/cves/${busiest}`, '#history tbody tr'],
      ['dashboard-changes', '/pulse', '#top-changes tbody tr'],
      ['advisories-changes', '/pulse/advisories', '#advisories tbody tr'],
      ['manage-deliveries', `/pulse/s/${manageToken}`, '#deliveries tbody tr'],
    ];
    for (const [name, path, rows] of pages) {
      for (const width of [1280, 390]) {
        const page = await browser.newPage({ width });
        await page.goto(`${server.url}${path}`);
        const label = `${path} at ${width} px`;
        expect(await page.locator(rows).count(), label).toBeGreaterThan(0);
        expect(await wordsBrokenMidWord(page), label).toEqual([]);
        expect(await valuesBrokenOverLines(page), label).toEqual([]);
        expect(await spillingElements(page), label).toEqual([]);
        expect(await widerThanWindow(page), label).toBeLessThanOrEqual(0);
        expect(await seriousAxeViolations(page), label).toEqual([]);
        await screenshot(page, `${name}${width < 500 ? '-phone' : ''}`);
        await page.close();
      }
    }
  }, 120_000);
});

describe('the manage page', () => {
  it('says when a delivery was given up as its table does ("2026-11-22 08:00 UTC"), not as an ISO stamp; the JSON API\'s problem is as it was', async () => {
    const manageToken = await confirmedSubscription('given-up@example.org', { vendor: 'cisco' });
    const store = server.pulse!.store;
    const subscription = (await store.subscriptionByToken(hashToken(manageToken), 'manage', new Date().toISOString()))!;
    const at = '2026-11-22T08:00:00.000Z';
    await store.updateSubscription(subscription.id, { cursorAt: '2026-11-21T08:00:00.000Z' }, at);
    const begun = (await store.beginDelivery({ id: 'd-given-up', subscriptionId: subscription.id, periodKey: 'daily:2026-11-22', rangeFrom: '2026-11-21T08:00:00.000Z', rangeTo: at, items: 3, at }))!;
    await store.finishDelivery(begun.id, { status: 'abandoned', at, error: 'SMTP 554 rejected', cursorAt: at, lastPeriod: 'daily:2026-11-22', pauseReason: null });

    const html = await (await fetch(`${server.url}/pulse/s/${manageToken}`)).text();
    const problem = /<div class="error-box" role="alert" id="problem"><p><strong>Delivery problem:<\/strong> ([^<]*)<\/p>/.exec(html)?.[1];
    expect(problem).toBe('a delivery was given up at 2026-11-22 08:00 UTC: SMTP 554 rejected');
    expect(html).toContain('2026-11-22 08:00 UTC</td>');
    const json = (await (await fetch(`${server.url}/pulse/api/subscriptions/${manageToken}`)).json()) as { problem: string };
    expect(json.problem).toBe(`a delivery was given up at ${at}: SMTP 554 rejected`);
  });
});

describe('the dashboard over a change history', () => {
  it('keeps the Live panel apart from the top changes\' table above it (it sat flush against its last row), and grid panels under their heading', async () => {
    for (const width of [1280, 390]) {
      const page = await browser.newPage({ width });
      await page.goto(`${server.url}/pulse`);
      const table = (await page.locator('#top-changes').boundingBox())!;
      const live = (await page.locator('section.live').boundingBox())!;
      expect(live.y - (table.y + table.height), `the gap above Live at ${width} px`).toBeGreaterThanOrEqual(16);
      // Panels side by side in a grid keep close to their heading (that margin once pushed a CVE
      // page's score breakdown 28 px down, away from its heading).
      await page.goto(`${server.url}/pulse/cves/CVE-2026-90141`);
      const heading = (await page.locator('#score-section-h').boundingBox())!;
      const breakdown = (await page.locator('#breakdown > .panel').first().boundingBox())!;
      expect(breakdown.y - (heading.y + heading.height), `the gap under the breakdown's heading at ${width} px`).toBeLessThanOrEqual(12);
      await page.close();
    }
  });
});
