/**
 * The /pulse JSON endpoints and link pages on a real server (`startServer` with a pulse store
 * and a real local SMTP server): double opt-in by following the e-mailed link, managing,
 * RFC 8058 one-click unsubscribe, abuse limits, and bad input always a 400 naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultRateLimitConfig } from '../../api/ratelimit/index.ts';
import type { RunningServer } from '../../api/server.ts';
import { checkAnswer, documentValidator } from '../api/server-harness.ts';
import type { OpenApiValidator } from '../helpers/openapi-validator.ts';
import { PUBLIC_URL as PUBLIC, startPulseServer, type PulseServer } from './pulse-server.ts';
import { startWebhookReceiver, type SmtpSink } from './sinks.ts';

let pulse: PulseServer;
let server: RunningServer;
let smtp: SmtpSink;
/** Each server's document validator, fetched once (the hook test starts a second server). */
const validators = new Map<RunningServer, () => Promise<OpenApiValidator>>();
const validatorOf = (on: RunningServer): Promise<OpenApiValidator> => {
  let get = validators.get(on);
  if (!get) validators.set(on, (get = documentValidator(on.url)));
  return get();
};
beforeAll(async () => {
  pulse = await startPulseServer({ limits: { createsPerCallerPerHour: 10, createsPerAddressPerHour: 3 } });
  ({ server, smtp } = pulse);
});

afterAll(async () => {
  await pulse?.close();
});

/**
 * Every answer is checked against the served OpenAPI document, as a validating client would; a
 * JSON body the server accepted (2xx) must be one the document accepts too.
 */
async function call(path: string, init: RequestInit = {}, on: RunningServer = server): Promise<Response> {
  const url = `${on.url}${path}`;
  const method = init.method ?? 'GET';
  const res = await fetch(url, init);
  const check = await validatorOf(on);
  await checkAnswer(check, method, url, res);
  const json = typeof init.body === 'string' && init.body !== '' && new Headers(init.headers).get('content-type') === 'application/json';
  if (res.ok && json) {
    const problems = check.checkRequest(method, url, JSON.parse(init.body as string));
    if (problems.length > 0) throw new Error(`The document refuses a request the server accepted:\n  ${problems.join('\n  ')}`);
  }
  return res;
}
const post = (path: string, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  call(path, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
const local = (url: string) => url.replace(PUBLIC, '');

async function expect400(res: Response, parameter: string): Promise<void> {
  expect(res.status, `${parameter}: ${res.status}`).toBe(400);
  const body = (await res.json()) as { code: string; parameter: string; message: string };
  expect(body.code).toBe('INVALID_PARAMETER');
  expect(body.parameter).toBe(parameter);
  expect(body.message).toContain(parameter);
}

describe('the read API stays GET-only', () => {
  it('POST on /api/ is still 405, while /pulse/api takes POST', async () => {
    expect((await post('/api/v1/public/cves', {})).status).toBe(405);
    expect((await call('/api/v1/public/cves', { method: 'DELETE' })).status).toBe(405);
    await expect400(await post('/pulse/api/subscriptions', {}), 'channel');
  });

  it('every /pulse/api path answers OPTIONS with the methods the document declares, and any other method with 405 and Allow', async () => {
    const doc = (await (await call('/api/v1/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    const paths = Object.entries(doc.paths).filter(([path]) => path.startsWith('/pulse/api/'));
    expect(paths.length).toBe(7);
    for (const [template, operations] of paths) {
      const path = template.replace(/\{\w+\}/g, 'AAAAAAAAAAAAAAAAAAAAAA');
      const declared = Object.keys(operations).map((m) => m.toUpperCase());
      const expected = new Set([...declared, ...(declared.includes('GET') ? ['HEAD'] : []), 'OPTIONS']);
      const options = await call(path, { method: 'OPTIONS' });
      expect(options.status, path).toBe(204);
      expect(new Set(options.headers.get('allow')!.split(', ')), path).toEqual(expected);
      expect(new Set(options.headers.get('access-control-allow-methods')!.split(', ')), path).toEqual(expected);
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !expected.has(m))) {
        const res = await call(path, { method });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(new Set(res.headers.get('allow')!.split(', ')), `${method} ${path}`).toEqual(expected);
        expect(await res.json()).toMatchObject({ code: 'METHOD_NOT_ALLOWED', method });
      }
    }
  });

  it('the /pulse pages answer OPTIONS with the methods they take (POST where a form posts), and any other method with 405 and Allow (it was a 404 "no page")', async () => {
    const token = 'AAAAAAAAAAAAAAAAAAAAAA';
    const pages: [string, string[]][] = [
      ['/pulse', ['GET', 'HEAD', 'OPTIONS']],
      ['/pulse/cves', ['GET', 'HEAD', 'OPTIONS']],
      ['/pulse/cves/CVE-2024-3400', ['GET', 'HEAD', 'OPTIONS']],
      ['/pulse/advisories', ['GET', 'HEAD', 'OPTIONS']],
      ['/pulse/subscribe', ['GET', 'HEAD', 'POST', 'OPTIONS']],
      [`/pulse/confirm/${token}`, ['GET', 'HEAD', 'POST', 'OPTIONS']],
      [`/pulse/s/${token}`, ['GET', 'HEAD', 'POST', 'OPTIONS']],
      [`/pulse/s/${token}/unsubscribe`, ['GET', 'HEAD', 'POST', 'OPTIONS']],
    ];
    for (const [path, methods] of pages) {
      const options = await fetch(`${server.url}${path}`, { method: 'OPTIONS' });
      expect(options.status, path).toBe(204);
      expect(new Set(options.headers.get('allow')!.split(', ')), path).toEqual(new Set(methods));
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !methods.includes(m))) {
        const res = await fetch(`${server.url}${path}`, { method });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(new Set(res.headers.get('allow')!.split(', ')), `${method} ${path}`).toEqual(new Set(methods));
        expect(res.headers.get('content-type'), `${method} ${path}`).toMatch(/^text\/html/);
        expect(await res.text(), `${method} ${path}`).toContain('data-status="405"');
      }
    }
    // A path no page answers stays a 404, whatever the method.
    expect((await fetch(`${server.url}/pulse/nothing`, { method: 'POST' })).status).toBe(404);
  });

  it('a /pulse page answers HEAD with the headers of its GET, Content-Length included (HEAD had none)', async () => {
    for (const path of ['/pulse', '/pulse/cves?severity=CRITICAL', '/pulse/cves/CVE-2024-3400', '/pulse/advisories', '/pulse/subscribe', '/pulse/cves?severity=bogus', '/pulse/nothing']) {
      const get = await fetch(`${server.url}${path}`);
      const body = new Uint8Array(await get.arrayBuffer());
      const head = await fetch(`${server.url}${path}`, { method: 'HEAD' });
      expect(head.status, path).toBe(get.status);
      expect(get.headers.get('content-length'), path).toBe(String(body.byteLength));
      for (const name of ['content-length', 'content-type', 'etag', 'cache-control', 'content-security-policy']) {
        expect(head.headers.get(name), `${name} of HEAD ${path}`).toBe(get.headers.get(name));
      }
    }
  });

  it('the OpenAPI document describes the /pulse endpoints', async () => {
    const doc = (await (await call('/api/v1/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths['/pulse/api/subscriptions'] ?? {})).toEqual(['post']);
    expect(Object.keys(doc.paths['/pulse/api/subscriptions/{token}'] ?? {}).sort()).toEqual(['delete', 'get', 'patch']);
  });
});

describe('bad input is a 400 naming the field, never a 500', () => {
  const cases: [string, unknown, string][] = [
    ['not JSON', '{"channel":', 'body'],
    ['empty body', '', 'body'],
    ['an array', [], 'body'],
    ['a string', '"email"', 'body'],
    ['channel of the wrong type', { channel: 5, email: 'a@example.org' }, 'channel'],
    ['unknown channel', { channel: 'sms' }, 'channel'],
    ['an unknown member', { channel: 'email', email: 'a@example.org', admin: true }, 'admin'],
    ['missing email', { channel: 'email' }, 'email'],
    ['email on a webhook', { channel: 'webhook', url: 'https://hooks.example.org/x', email: 'a@example.org' }, 'email'],
    ['a malformed address', { channel: 'email', email: 'no-at-sign' }, 'email'],
    ['a header injection', { channel: 'email', email: 'a@example.org\r\nBcc: x@example.org' }, 'email'],
    ['a numeric domain (the mail went to bob@10.0.0.1)', { channel: 'email', email: 'bob@10.1' }, 'email'],
    ['an IP address for a domain', { channel: 'email', email: 'a@127.0.0.1' }, 'email'],
    ['a bidirectional override in the address', { channel: 'email', email: 'a\u202eb@example.org' }, 'email'],
    ['a lone surrogate in the address', { channel: 'email', email: 'a\ud800@example.org' }, 'email'],
    ['two dots in a row in the address', { channel: 'email', email: 'a..b@example.org' }, 'email'],
    ['a bad cadence', { channel: 'email', email: 'a@example.org', cadence: 'hourly' }, 'cadence'],
    ['a filter of the wrong type', { channel: 'email', email: 'a@example.org', filter: 'microsoft' }, 'filter'],
    ['min_risk as text', { channel: 'email', email: 'a@example.org', filter: { min_risk: 'high' } }, 'filter.min_risk'],
    ['min_risk out of range', { channel: 'email', email: 'a@example.org', filter: { min_risk: 101 } }, 'filter.min_risk'],
    ['an unknown kind', { channel: 'email', email: 'a@example.org', filter: { kinds: ['new_cve', 'exploded'] } }, 'filter.kinds.1'],
    ['an unknown filter member', { channel: 'email', email: 'a@example.org', filter: { vendr: 'x' } }, 'filter.vendr'],
    ['a malformed CWE', { channel: 'email', email: 'a@example.org', filter: { cwe: '79' } }, 'filter.cwe'],
    ['a huge vendor', { channel: 'email', email: 'a@example.org', filter: { vendor: 'x'.repeat(300) } }, 'filter.vendor'],
    ['a search with no letter or digit (it alerted on everything)', { channel: 'email', email: 'a@example.org', filter: { search: '***' } }, 'filter.search'],
    ['a product without a vendor', { channel: 'webhook', url: 'https://hooks.example.org/x', filter: { product: 'windows' } }, 'filter.product'],
    ['a webhook URL that is not one', { channel: 'webhook', url: 'ftp://example.org/x' }, 'url'],
    ['a webhook URL with credentials', { channel: 'webhook', url: 'https://u:p@hooks.example.org/x' }, 'url'],
    ['a loopback webhook (no --pulse-allow-private-webhooks)', { channel: 'webhook', url: `${server?.url ?? 'http://127.0.0.1:1'}/x` }, 'url'],
    ['a metadata webhook', { channel: 'webhook', url: 'http://169.254.169.254/latest/meta-data/' }, 'url'],
  ];
  for (const [name, body, parameter] of cases) {
    it(name, async () => expect400(await post('/pulse/api/subscriptions', body), parameter));
  }

  it('a preview whose filter is no object names filter (it said filter.body)', async () => {
    for (const filter of [[], 'x', 5]) await expect400(await post('/pulse/api/preview', { filter }), 'filter');
  });

  it('a preview whose filter is null names filter, as creating and PATCH do (it previewed every change, as if no filter were sent)', async () => {
    await expect400(await post('/pulse/api/preview', { filter: null }), 'filter');
    expect((await post('/pulse/api/preview', {})).status).toBe(200);
  });

  // What no schema can say: a URL's user name, where its host resolves.
  const BEYOND_THE_DOCUMENT = new Set(['a webhook URL with credentials', 'a loopback webhook (no --pulse-allow-private-webhooks)', 'a metadata webhook']);

  it('the document refuses these bodies too (a validating client never sends them)', async () => {
    const validator = await validatorOf(server);
    for (const [name, body] of cases) {
      if (typeof body !== 'object' || BEYOND_THE_DOCUMENT.has(name)) continue;
      expect(validator.checkRequest('POST', `${server.url}/pulse/api/subscriptions`, body), name).not.toEqual([]);
    }
  });

  it('a filter the document takes, the server takes, and the other way round (preview, PATCH)', async () => {
    const validator = await validatorOf(server);
    const filters: unknown[] = [
      {},
      { vendor: 'cisco' },
      { vendor: ' cisco ' },
      { vendor: '' },
      { vendor: '   ' },
      { vendor: 'a\u0001b' },
      { vendor: '🙂'.repeat(200) },
      { vendor: '🙂'.repeat(201) },
      { search: 'x'.repeat(200) },
      { search: 'x'.repeat(201) },
      { search: '***' },
      { product: 'windows' },
      { vendor: 'microsoft', product: 'windows' },
      { product: 'windows', kev_only: true },
      { search: ' !!! ' },
      { search: 'é' },
      { search: '7' },
      { cwe: 'cwe-79' },
      { cwe: ' CWE-79 ' },
      { cwe: 'CWE-1234567' },
      { kinds: [] },
      { kinds: ['new_cve', 'new_cve'] },
      { kinds: ['new_cve', 'kev_added'] },
      { min_risk: 0 },
      { min_risk: 100.5 },
      { min_severity: 'high' },
      { kev_only: 'yes' },
      { other: 1 },
    ];
    for (const filter of filters) {
      const documented = validator.checkRequest('POST', `${server.url}/pulse/api/preview`, { filter, days: 7 }).length === 0;
      const res = await post('/pulse/api/preview', { filter, days: 7 });
      expect(res.status === 200 ? 'taken' : 'refused', JSON.stringify(filter)).toBe(documented ? 'taken' : 'refused');
      await res.arrayBuffer();
    }
    for (const body of [{ days: 0 }, { days: 91 }, { days: 1.5 }, { days: '7' }, { days: 90 }, { extra: true }]) {
      const documented = validator.checkRequest('POST', `${server.url}/pulse/api/preview`, body).length === 0;
      const res = await post('/pulse/api/preview', body);
      expect(res.status === 200 ? 'taken' : 'refused', JSON.stringify(body)).toBe(documented ? 'taken' : 'refused');
      await res.arrayBuffer();
    }
    expect(validator.checkRequest('PATCH', `${server.url}/pulse/api/subscriptions/x`, {})).not.toEqual([]);
  });

  it('a body past 16 KiB is refused unread, named body', async () => {
    await expect400(await post('/pulse/api/subscriptions', { channel: 'email', email: 'a@example.org', filter: { search: 'x'.repeat(20_000) } }), 'body');
  });

  it('random junk never gets a 500', async () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const values = [null, true, 0, -1, 1e308, 'x', '', [], {}, [1, 'a'], { a: 1 }, 'CWE-79', 'CRITICAL', 'email', 'webhook'];
    const keys = ['channel', 'email', 'url', 'cadence', 'filter', 'kinds', 'vendor', 'min_risk', '__proto__', 'constructor'];
    for (let i = 0; i < 60; i++) {
      const body: Record<string, unknown> = {};
      for (let k = 0; k < 1 + Math.floor(random() * 4); k++) {
        const key = keys[Math.floor(random() * keys.length)]!;
        body[key] = key === 'filter' ? { [keys[Math.floor(random() * keys.length)]!]: values[Math.floor(random() * values.length)] } : values[Math.floor(random() * values.length)];
      }
      const res = await post('/pulse/api/subscriptions', body);
      expect([400, 429], JSON.stringify(body)).toContain(res.status);
      await res.arrayBuffer();
    }
    for (const path of ['/pulse/api/subscriptions/AAAAAAAAAAAAAAAAAAAAAA', '/pulse/api/subscriptions/not-a-token']) {
      const patch = await call(path, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{"cadence":"daily"}' });
      expect(patch.status).toBe(404);
      expect(((await patch.json()) as { code: string }).code).toBe('NOT_FOUND');
    }
  });
});

describe('the subscribe form (HTML, works without JavaScript)', () => {
  const form = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/pulse/subscribe`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });
  // The field at fault: the form's notice, or (no snapshot to draw the form with, as here) the error page's.
  const fieldOf = (html: string) => /id="notice" data-field="([^"]*)"|role="alert"[^>]*data-parameter="([^"]*)"|data-parameter="([^"]*)"[^>]*role="alert"/.exec(html)?.slice(1).find((x) => x !== undefined);

  it('a bad filter field is a 400 page naming it (it was a 500)', async () => {
    for (const [field, value] of [['min_risk', 'abc'], ['cwe', '79'], ['kind', 'bogus'], ['min_severity', 'bogus'], ['kev_only', 'maybe'], ['search', '\u0001'], ['search', '***'], ['product', 'windows']] as const) {
      const res = await form(`channel=email&email=someone%40example.org&${field}=${encodeURIComponent(value)}`);
      const html = await res.text();
      expect(res.status, field).toBe(400);
      expect(res.headers.get('content-type'), field).toMatch(/^text\/html/);
      expect(fieldOf(html), field).toBe(field);
    }
    expect(smtp.messages.filter((m) => JSON.stringify(m.to).includes('someone@example.org'))).toEqual([]);
  });

  it('a form larger than 16 KiB is a 400 page naming body, never buffered; the server goes on', async () => {
    const huge = `channel=email&email=x%40example.org&search=${'a'.repeat(2_000_000)}`;
    const declared = await form(huge);
    expect(declared.status).toBe(400);
    expect(fieldOf(await declared.text())).toBe('body');
    // Sent without a length (chunked): refused as it streams.
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        const chunk = new TextEncoder().encode('a'.repeat(64 * 1024));
        controller.enqueue(new TextEncoder().encode('channel=email&email=x%40example.org&search='));
        for (let i = 0; i < 32; i++) controller.enqueue(chunk);
        controller.close();
      },
    });
    const chunked = await fetch(`${server.url}/pulse/subscribe`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: stream, duplex: 'half' } as RequestInit);
    expect(chunked.status).toBe(400);
    expect(fieldOf(await chunked.text())).toBe('body');
    // The manage form and the one-click unsubscribe take the same limit.
    const manage = await fetch(`${server.url}/pulse/s/AAAAAAAAAAAAAAAAAAAAAA`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: huge });
    expect([400, 404]).toContain(manage.status);
    await manage.arrayBuffer();
    // The refusals close their connections (the body was left unread): the next request, on a
    // new one, is answered.
    expect((await fetch(`${server.url}/api/v1/openapi.json`)).status).toBe(200);
  });

  it('a field named like a member of every object (__proto__, constructor, toString) is ignored like any other unknown field (it was a 500)', async () => {
    const extra = '__proto__=1&constructor=2&toString=3&hasOwnProperty=4';
    // Read as a form (the bad filter field named), creating nothing.
    const subscribe = await form(`intent=subscribe&channel=email&email=proto%40example.org&min_risk=abc&${extra}`);
    expect(subscribe.status).toBe(400);
    expect(fieldOf(await subscribe.text())).toBe('min_risk');
    const manage = await fetch(`${server.url}/pulse/s/AAAAAAAAAAAAAAAAAAAAAA`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `action=pause&${extra}` });
    expect(manage.status).toBe(404);
    await manage.arrayBuffer();
  });
});

describe('double opt-in, manage, one-click unsubscribe', () => {
  let manageUrl: string;

  it('confirms by following the e-mailed link and pressing Confirm', async () => {
    const before = smtp.messages.length;
    const res = await post('/pulse/api/subscriptions', { channel: 'email', email: 'ops@example.org', cadence: 'weekly', filter: { vendor: 'cisco', search: '<img src=x onerror=alert(1)>' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const created = (await res.json()) as { manage_url: null; subscription: { status: string } };
    expect(created.manage_url).toBeNull();
    expect(created.subscription.status).toBe('pending');
    await smtp.waitFor(before + 1);
    const link = /https:\/\/alerts\.example\.org\/pulse\/confirm\/[A-Za-z0-9_-]{22}/.exec(smtp.to('ops@example.org')[0]!.text ?? '')![0];

    // Following the link shows a button: a mail scanner prefetching it confirms nothing.
    const page = await call(local(link));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await page.text()).toContain('<form method="post"');
    // Confirmed, the answer is a redirect to the manage page (POST-redirect-GET: a reload is a GET).
    const confirmed = await fetch(`${server.url}${local(link)}`, { method: 'POST', redirect: 'manual' });
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get('cache-control')).toBe('no-store');
    const location = confirmed.headers.get('location')!;
    expect(location).toMatch(/^\/pulse\/s\/[A-Za-z0-9_-]{22}\?done=confirmed$/);
    const landed = await call(location);
    expect(landed.status).toBe(200);
    const html = await landed.text();
    expect(html).toContain('Subscription confirmed');
    manageUrl = /https:\/\/alerts\.example\.org\/pulse\/s\/[A-Za-z0-9_-]{22}/.exec(html)![0];
    expect(location).toBe(`${local(manageUrl)}?done=confirmed`);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain('<img');
    // A `done` the page does not know says nothing, those named like a member of every object
    // (`toString`, `constructor`) included: they showed an empty "done" notice.
    for (const done of ['bogus', 'toString', 'constructor', '__proto__']) {
      const other = await call(`${local(manageUrl)}?done=${done}`);
      expect(other.status, done).toBe(200);
      expect(await other.text(), done).not.toContain('id="notice"');
    }

    // The link confirms once: used again (page or API), it says so and mints no other manage
    // link (each use minted one more permanent token, for 48 hours).
    for (let i = 0; i < 3; i++) {
      const again = await call(local(link), { method: 'POST' });
      expect(again.status).toBe(404);
      const page = await again.text();
      expect(page).toContain('already confirmed');
      expect(page).not.toMatch(/\/pulse\/s\/[A-Za-z0-9_-]{22}/);
    }
    const api = await post(`/pulse/api/confirm/${link.split('/').at(-1)}`, '');
    expect(api.status).toBe(404);
    expect(await api.json()).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('already confirmed') });
    // Followed again, the used link says so at once: no button that cannot work.
    const reopened = await call(local(link));
    expect(reopened.status).toBe(404);
    const reopenedHtml = await reopened.text();
    expect(reopenedHtml).toContain('already confirmed');
    expect(reopenedHtml).not.toContain('<form method="post"');
  });

  it('the manage link reads, edits, pauses and resumes it', async () => {
    const token = manageUrl.split('/').at(-1)!;
    const view = (await (await call(`/pulse/api/subscriptions/${token}`)).json()) as Record<string, unknown>;
    expect(view).toMatchObject({ channel: 'email', address: 'ops@example.org', cadence: 'weekly', status: 'active', deliveries: [] });
    const page = await call(local(manageUrl));
    expect(page.status).toBe(200);
    expect(await page.text()).not.toContain('<img');

    // Every filter member at once: the document must take the request and describe the answer
    // (a CWE is written in any case and kept upper-case).
    const filter = {
      kinds: ['new_cve', 'kev_added'],
      vendor: 'cisco',
      product: 'ios_xe',
      ecosystem: 'npm',
      package: 'lodash',
      cwe: 'cwe-79',
      search: 'remote code',
      min_severity: 'HIGH',
      min_risk: 50,
      kev_only: true,
    };
    const patched = await call(`/pulse/api/subscriptions/${token}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ cadence: 'daily', filter }) });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({ cadence: 'daily', filter: { ...filter, cwe: 'CWE-79' } });
    expect(await (await call(`/pulse/api/subscriptions/${token}`)).json()).toMatchObject({ filter: { ...filter, cwe: 'CWE-79' } });
    await expect400(await call(`/pulse/api/subscriptions/${token}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ channel: 'webhook' }) }), 'channel');
    await expect400(await call(`/pulse/api/subscriptions/${token}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{}' }), 'body');

    expect(await (await post(`/pulse/api/subscriptions/${token}/pause`, '')).json()).toMatchObject({ status: 'paused', paused_reason: 'paused by its owner' });
    expect(await (await post(`/pulse/api/subscriptions/${token}/resume`, '')).json()).toMatchObject({ status: 'active', paused_reason: null });
    expect(await (await call(`/pulse/api/subscriptions/${token}/deliveries?limit=5`)).json()).toEqual({ deliveries: [] });
    await expect400(await call(`/pulse/api/subscriptions/${token}/deliveries?limit=x`), 'limit');
    // Given twice: refused, as every parameter of the API (one of the two was taken silently).
    await expect400(await call(`/pulse/api/subscriptions/${token}/deliveries?limit=1&limit=2`), 'limit');
  });

  it('a token whose percent-encoding is not UTF-8 text is a 400 naming token (it was looked up as the raw characters)', async () => {
    await expect400(await call('/pulse/api/subscriptions/%FF'), 'token');
    await expect400(await call('/pulse/api/subscriptions/AAAAAAAAAAAAAAAAAAAA%C3/deliveries'), 'token');
    await expect400(await call('/pulse/api/confirm/%ED%A0%80', { method: 'POST' }), 'token');
  });

  it('a confirm or unsubscribe link that opens nothing says so at once, with no button (it showed the button and told only after the click); a GET changes nothing', async () => {
    const token = manageUrl.split('/').at(-1)!;
    // A token of the right shape that no subscription holds is as unknown as a malformed one.
    for (const path of ['/pulse/confirm/not-a-token', '/pulse/confirm/x', '/pulse/confirm/AAAAAAAAAAAAAAAAAAAAAA', '/pulse/s/AAAAAAAAAAAAAAAAAAAAAA/unsubscribe', '/pulse/s/not-a-token/unsubscribe']) {
      const res = await fetch(`${server.url}${path}`);
      const html = await res.text();
      expect(res.status, path).toBe(404);
      expect(html, path).toMatch(/unknown/);
      expect(html, path).not.toContain('<form method="post"');
      expect(res.headers.get('referrer-policy'), path).toBe('no-referrer');
    }
    // A link that opens a subscription shows its button, and the GET leaves it as it was.
    const prompt = await fetch(`${server.url}/pulse/s/${token}/unsubscribe`);
    expect(prompt.status).toBe(200);
    expect(await prompt.text()).toContain(`<form method="post" action="/pulse/s/${token}/unsubscribe">`);
    expect((await call(`/pulse/api/subscriptions/${token}`)).status).toBe(200);
  });

  it('RFC 8058: a POST of List-Unsubscribe=One-Click to the unsubscribe link deletes it', async () => {
    const token = manageUrl.split('/').at(-1)!;
    const res = await post(`/pulse/s/${token}/unsubscribe`, 'List-Unsubscribe=One-Click', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('The subscription is deleted');
    const gone = await call(`/pulse/api/subscriptions/${token}`);
    expect(gone.status).toBe(404);
    // About one subscription, its token in the address: never kept by a shared cache, refusals too.
    expect(gone.headers.get('cache-control')).toBe('no-store');
    const again = await post(`/pulse/s/${token}/unsubscribe`, 'List-Unsubscribe=One-Click', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(again.status).toBe(200);
    expect((await call(`/pulse/s/${token}`)).status).toBe(404);
  });

  it('a POST ignores If-None-Match (never a 304: that is for GET and HEAD)', async () => {
    const first = await post('/pulse/api/preview', { filter: { vendor: 'cisco' }, days: 7 });
    const etag = first.headers.get('etag')!;
    expect(etag).toBeTruthy();
    const again = await call('/pulse/api/preview', { method: 'POST', headers: { 'content-type': 'application/json', 'if-none-match': etag }, body: JSON.stringify({ filter: { vendor: 'cisco' }, days: 7 }) });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(await first.json());
  });

  it('previews what a filter would have matched (no snapshot yet: nothing)', async () => {
    expect(await (await post('/pulse/api/preview', { filter: { vendor: 'cisco' }, days: 7 })).json()).toEqual({ days: 7, total: 0, by_kind: {}, changes: [] });
    await expect400(await post('/pulse/api/preview', { filter: { min_severity: 'URGENT' } }), 'filter.min_severity');
    await expect400(await post('/pulse/api/preview', { filter: { search: '!!!' } }), 'filter.search');
    await expect400(await post('/pulse/api/preview', { filter: { product: 'windows' } }), 'filter.product');
    await expect400(await post('/pulse/api/preview', { days: 400 }), 'days');
    await expect400(await post('/pulse/api/preview', { dayz: 4 }), 'dayz');
  });
});

describe('a server that sends no mail (no --smtp)', () => {
  it('documents webhook subscriptions only, and refuses the e-mail channel it does not document', async () => {
    const noMail = await startPulseServer({}, { mail: false });
    try {
      const doc = (await (await fetch(`${noMail.server.url}/api/v1/openapi.json`)).json()) as {
        paths: Record<string, { post?: { requestBody: { content: Record<string, { schema: Record<string, unknown> }> } } }>;
      };
      const schema = doc.paths['/pulse/api/subscriptions']!.post!.requestBody.content['application/json']!.schema;
      expect(JSON.stringify(schema)).toContain('PulseCreateWebhook');
      expect(JSON.stringify(schema)).not.toContain('PulseCreateEmail');
      const refused = await call('/pulse/api/subscriptions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ channel: 'email', email: 'ops@example.org' }) }, noMail.server);
      expect(refused.status).toBe(400);
      expect(noMail.smtp.messages).toHaveLength(0);
    } finally {
      await noMail.close();
    }
    // With mail, both channels.
    const doc = JSON.stringify(await (await fetch(`${server.url}/api/v1/openapi.json`)).json());
    expect(doc).toContain('PulseCreateEmail');
  });
});

describe('a webhook subscription over HTTP, every answer as the document says', () => {
  it('is created (pinged, its secret shown once), read, paused, resumed and deleted', async () => {
    const hooks = await startWebhookReceiver();
    const hookPulse = await startPulseServer({ pulseAllowPrivateWebhooks: true });
    const hookServer = hookPulse.server;
    try {
      const json = { 'content-type': 'application/json' };
      const body = { channel: 'webhook', url: hooks.url('/ops'), cadence: 'realtime', filter: { cwe: 'cwe-079', kev_only: true } };
      const created = await call('/pulse/api/subscriptions', { method: 'POST', headers: json, body: JSON.stringify(body) }, hookServer);
      expect(created.status).toBe(201);
      const answer = (await created.json()) as { subscription: { status: string; filter: unknown }; manage_url: string; secret: string; confirmation: null };
      expect(answer).toMatchObject({ subscription: { status: 'active', filter: { cwe: 'CWE-79', kev_only: true } }, confirmation: null });
      expect(answer.secret.length).toBeGreaterThan(20);
      expect(hooks.on('/ops', true)).toHaveLength(1);
      const token = answer.manage_url.split('/').at(-1)!;
      const path = `/pulse/api/subscriptions/${token}`;
      expect(((await (await call(path, {}, hookServer)).json()) as { secret?: string }).secret).toBeUndefined();
      expect((await (await call(`${path}/pause`, { method: 'POST' }, hookServer)).json()) as object).toMatchObject({ status: 'paused' });
      expect((await (await call(`${path}/resume`, { method: 'POST' }, hookServer)).json()) as object).toMatchObject({ status: 'active' });
      expect(await (await call(`${path}/deliveries?limit=200`, {}, hookServer)).json()).toEqual({ deliveries: [] });
      expect(await (await call(path, { method: 'DELETE' }, hookServer)).json()).toEqual({ deleted: true });
      expect((await call(path, {}, hookServer)).status).toBe(404);
    } finally {
      await hookPulse.close();
      await hooks.close();
    }
  });
});

describe('abuse limits', () => {
  it('limits creations per address, then per caller, with 429 and Retry-After', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await post('/pulse/api/subscriptions', { channel: 'email', email: 'target@example.org' })).status);
    expect(statuses).toEqual([201, 201, 201, 429]);
    const refused = await post('/pulse/api/subscriptions', { channel: 'email', email: 'target@example.org' });
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    // About this caller now: never replayed by a shared cache (it was public, max-age=60).
    expect(refused.headers.get('cache-control')).toBe('no-store');
    expect(await refused.json()).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', scope: 'pulse_create_per_address', limit: 3 });
    // Counted so far for this caller (every valid attempt counts, refused or not): the two
    // internal webhooks (refused after the count), ops, 4 + 1 for target = 8 of 10.
    const more: number[] = [];
    for (let i = 0; i < 3; i++) more.push((await post('/pulse/api/subscriptions', { channel: 'email', email: `other${i}@example.org` })).status);
    expect(more).toEqual([201, 201, 429]);
    expect(await (await post('/pulse/api/subscriptions', { channel: 'email', email: 'x@example.org' })).json()).toMatchObject({ scope: 'pulse_create_per_caller', limit: 10 });
  });

  it('with the rate limiter on, a creation limit\'s 429 is the document\'s RateLimited answer about that limit, not the per-second headers of the request', async () => {
    const limited = await startPulseServer(
      { limits: { createsPerCallerPerHour: 1, createsPerAddressPerHour: 5 } },
      { rateLimit: defaultRateLimitConfig({ logger: { info: () => undefined, warn: () => undefined } }) },
    );
    try {
      const create = (email: string) =>
        call('/pulse/api/subscriptions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ channel: 'email', email }) }, limited.server);
      const admitted = await create('a@example.org');
      expect(admitted.status).toBe(201);
      expect(admitted.headers.get('x-ratelimit-window')).toBe('1s');
      // checkAnswer (in call) holds the refusal to the document: RateLimitError, Retry-After, X-RateLimit-*.
      const refused = await create('b@example.org');
      expect(refused.status).toBe(429);
      const retryAfter = refused.headers.get('retry-after')!;
      expect(Number(retryAfter)).toBeGreaterThan(0);
      expect(Number(retryAfter)).toBeLessThanOrEqual(3600);
      expect({
        limit: refused.headers.get('x-ratelimit-limit'),
        remaining: refused.headers.get('x-ratelimit-remaining'),
        reset: refused.headers.get('x-ratelimit-reset'),
        window: refused.headers.get('x-ratelimit-window'),
      }).toEqual({ limit: '1', remaining: '0', reset: retryAfter, window: '3600s' });
      expect(await refused.json()).toEqual({
        code: 'RATE_LIMIT_EXCEEDED',
        message: 'At most 1 subscriptions may be created per hour from one address; try again later.',
        retry_after: Number(retryAfter),
        limit: 1,
        window: '3600s',
        scope: 'pulse_create_per_caller',
      });
    } finally {
      await limited.close();
    }
  });
});
