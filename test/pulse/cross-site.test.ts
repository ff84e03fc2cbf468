/**
 * Writes to /pulse sent by a browser from another site are refused (api/http/cross-site-writes.ts):
 * the subscription API and the web area's forms, told by `Sec-Fetch-Site` or `Origin`; the same
 * requests from this site's pages, or from programs (no such headers), go through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { checkAnswer, documentValidator } from '../api/server-harness.ts';
import { PUBLIC_URL as PUBLIC, startPulseServer, type PulseServer } from './pulse-server.ts';
import type { SmtpSink } from './sinks.ts';

let pulse: PulseServer;
let server: RunningServer;
let smtp: SmtpSink;

beforeAll(async () => {
  pulse = await startPulseServer();
  ({ server, smtp } = pulse);
});

afterAll(async () => {
  await pulse?.close();
});

const subscribe = async (email: string, headers: Record<string, string>) => {
  const url = `${server.url}/pulse/api/subscriptions`;
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ channel: 'email', email, filter: { kev_only: true } }) });
  await checkAnswer(await documentValidator(server.url)(), 'POST', url, res);
  return res;
};
const form = (email: string, headers: Record<string, string>) =>
  fetch(`${server.url}/pulse/subscribe`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: `channel=email&email=${encodeURIComponent(email)}&kev_only=true` });
const mailedTo = (address: string) => smtp.messages.filter((m) => JSON.stringify(m.to).includes(address)).length;

describe('a write to /pulse from another site', () => {
  it('is refused on the API (403 CROSS_SITE_REQUEST, as the document declares) and nothing is sent', async () => {
    const cases: Record<string, string>[] = [{ 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' }, { origin: 'https://evil.example' }, { origin: 'null' }];
    for (const headers of cases) {
      const res = await subscribe('victim@example.org', headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(((await res.json()) as { code: string }).code).toBe('CROSS_SITE_REQUEST');
    }
    expect(mailedTo('victim@example.org')).toBe(0);
  });

  it('is refused on the subscribe form with a page saying why', async () => {
    const res = await form('victim2@example.org', { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toContain('another site');
    expect(mailedTo('victim2@example.org')).toBe(0);
  });

  it('from this site (its pages, its public name behind a proxy) or from a program goes through', async () => {
    const host = new URL(server.url).host;
    for (const [email, headers] of [
      ['same-origin@example.org', { 'sec-fetch-site': 'same-origin', origin: server.url }],
      ['public-name@example.org', { origin: PUBLIC }],
      ['own-host@example.org', { origin: `http://${host}` }],
      ['program@example.org', {}],
    ] as const) {
      const res = await subscribe(email, headers);
      expect(res.status, email).toBe(201);
      expect(mailedTo(email), email).toBe(1);
    }
    const page = await form('form-same-site@example.org', { 'sec-fetch-site': 'same-origin', origin: server.url });
    expect(page.status).toBeLessThan(400);
    expect(mailedTo('form-same-site@example.org')).toBe(1);
  });

  it('is taken on the unsubscribe link only (RFC 8058 one-click from a webmail page); the manage form stays refused', async () => {
    const before = smtp.messages.length;
    expect((await subscribe('one-click@example.org', {})).status).toBe(201);
    await smtp.waitFor(before + 1);
    const mail = smtp.messages.find((m) => JSON.stringify(m.to).includes('one-click@example.org'))!;
    const confirmPath = /\/pulse\/confirm\/[A-Za-z0-9_-]{22}/.exec(mail.text ?? '')![0];
    const confirmed = await fetch(`${server.url}${confirmPath}`, { method: 'POST', redirect: 'manual' });
    const managePath = /^\/pulse\/s\/[A-Za-z0-9_-]{22}/.exec(confirmed.headers.get('location') ?? '')![0];
    const crossSite = { 'sec-fetch-site': 'cross-site', origin: 'https://mail.example.com', 'content-type': 'application/x-www-form-urlencoded' };

    const edit = await fetch(`${server.url}${managePath}`, { method: 'POST', headers: crossSite, body: 'action=pause' });
    expect(edit.status).toBe(403);
    expect((await fetch(`${server.url}/pulse/api/subscriptions/${managePath.split('/').at(-1)}`)).status).toBe(200);

    const unsubscribed = await fetch(`${server.url}${managePath}/unsubscribe`, { method: 'POST', headers: crossSite, body: 'List-Unsubscribe=One-Click' });
    expect(unsubscribed.status).toBe(200);
    expect((await fetch(`${server.url}/pulse/api/subscriptions/${managePath.split('/').at(-1)}`)).status).toBe(404);
  });
});
