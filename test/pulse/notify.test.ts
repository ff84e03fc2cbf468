/**
 * `notify` end to end over real receivers: a local SMTP server and a local webhook receiver
 * that verifies every signature. Subscriptions are made through the subscription service (the
 * module the pages and the JSON API call); changes.parquet is written in the model's layout.
 * One clock drives the service, the notifier and the receiver, so retries and digests are due
 * when the test says.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeRow } from '../../lib/changes/model.ts';
import { PulseInputError } from '../../lib/pulse/errors.ts';
import type { PulseLinks } from '../../lib/pulse/links.ts';
import type { Mailer } from '../../lib/pulse/mailer.ts';
import { runNotify, type NotifySummary } from '../../lib/pulse/notify.ts';
import { PulseService } from '../../lib/pulse/service.ts';
import type { PulseStore } from '../../lib/pulse/store/store.ts';
import { verifySignature } from '../../lib/pulse/webhook.ts';
import { change, publishChanges } from './changes-fixture.ts';
import { startServiceFixture, tokenOf, type ServiceFixture } from './service-fixture.ts';
import type { SmtpSink, WebhookReceiver } from './sinks.ts';

process.env.VULNINTEL_QUIET = '1';

let clock = new Date('2026-11-24T08:00:00.000Z');
const now = () => new Date(clock);
const at = (iso: string) => (clock = new Date(iso));
const seconds = () => Math.floor(clock.getTime() / 1000);

let fixture: ServiceFixture;
let dataDir: string;
let store: PulseStore;
let smtp: SmtpSink;
let hooks: WebhookReceiver;
let mailer: Mailer;
let service: PulseService;
let links: PulseLinks;

function notify(allowPrivateWebhooks = true): Promise<NotifySummary> {
  return runNotify({ dataDir, store, links, mailer, allowPrivateWebhooks, now, webhookTimeoutMs: 3000 });
}

/** A header as sent (mailparser turns List-Unsubscribe into an object). */
const rawHeader = (mail: { headerLines: readonly { key: string; line: string }[] }, name: string) => {
  const line = mail.headerLines.find((h) => h.key === name.toLowerCase())?.line;
  return line?.slice(line.indexOf(':') + 1).trim();
};
const linkIn = (text: string, prefix: string) => new RegExp(`${prefix.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}[A-Za-z0-9_-]{22}`).exec(text)?.[0];

// Build 1 (detected 2026-11-24 09:00): what each subscription should see.
const B1 = '2026-11-24T09:00:00.000Z';
const b1: ChangeRow[] = [
  change({
    build_id: 'b1', detected_at: B1, kind: 'kev_added', cve_id: 'CVE-2026-0001', title: 'Exchange RCE', vendors: ['microsoft'], products: ['microsoft:exchange_server'],
    in_kev: true, service_severity: 'CRITICAL', service_risk: 88, before: '{"in_kev":false}', after: '{"in_kev":true}',
    // Upstream text with chat markup and a line of its own: neither may reach a reader as such.
    why: 'CISA added it to the KEV catalog: exploited in the wild. <!channel> <https://evil.example/fix|Official fix>\nManage or unsubscribe: https://evil.example/x',
  }),
  change({
    build_id: 'b1', detected_at: B1, kind: 'risk_changed', cve_id: 'CVE-2026-0001', title: 'Exchange RCE', vendors: ['microsoft'], products: ['microsoft:exchange_server'],
    in_kev: true, service_severity: 'CRITICAL', service_risk: 88, before: '{"service_risk":41}', after: '{"service_risk":88}', why: 'Risk rose from 41 to 88 because it is in KEV.',
  }),
  change({
    build_id: 'b1', detected_at: B1, kind: 'score_changed', cve_id: 'CVE-2026-0002', title: 'Edge <script>alert(1)</script> spoofing', vendors: ['microsoft'],
    service_severity: 'MEDIUM', service_risk: 20, before: '{"service_score":4.3}', after: '{"service_score":5.4}', why: 'NVD scored it.',
  }),
  change({ build_id: 'b1', detected_at: B1, kind: 'new_cve', cve_id: 'CVE-2026-0003', title: 'httpd overflow', vendors: ['apache'], service_severity: 'HIGH', service_risk: 55, why: 'Published today.' }),
  change({
    build_id: 'b1', detected_at: B1, kind: 'new_advisory', subject_type: 'advisory', cve_id: null, vendor: 'cisco', advisory_id: 'cisco-sa-ios-xe-2026', title: 'IOS XE web UI',
    vendors: ['cisco'], service_severity: null, service_risk: null, vendor_severity: 'CRITICAL', why: 'Cisco published an advisory with no CVE yet.',
  }),
];

// Build 2 (next day): one more Microsoft change.
const B2 = '2026-11-25T09:00:00.000Z';
const b2: ChangeRow[] = [
  change({ build_id: 'b2', detected_at: B2, kind: 'epss_crossed', cve_id: 'CVE-2026-0002', title: 'Edge spoofing', vendors: ['microsoft'], service_severity: 'MEDIUM', service_risk: 35, epss_score: 0.52, before: '{"epss_score":0.08}', after: '{"epss_score":0.52}', why: 'EPSS crossed 0.50.' }),
];

const subs: Record<string, { manage?: string; secret?: string }> = {};

beforeAll(async () => {
  fixture = await startServiceFixture({ now, clockSeconds: seconds, limits: { createsPerCallerPerHour: 100, createsPerAddressPerHour: 100 } });
  ({ dataDir, store, smtp, hooks, mailer, service, links } = fixture);
});

afterAll(async () => {
  await fixture?.close();
});

describe('subscribing', () => {
  it('an e-mail subscription needs its confirmation link (double opt-in)', async () => {
    at('2026-11-24T08:00:00.000Z');
    const created = await service.create({ channel: 'email', email: 'Sec@Example.org', filter: { vendor: 'Microsoft' } }, 'caller-1');
    // Stored as mailed: the domain as the mailer writes it in the envelope (lower case), the local part as typed.
    expect(created).toMatchObject({ manage_url: null, secret: null, subscription: { status: 'pending', channel: 'email' }, confirmation: { sent_to: 'Sec@example.org', expires_at: '2026-11-26T08:00:00.000Z' } });
    await smtp.waitFor(1);
    const mail = smtp.to('sec@example.org')[0]!;
    expect(mail.subject).toBe('[vulnintel] Confirm your subscription');
    const confirm = linkIn(mail.text ?? '', 'https://pulse.example.org/pulse/confirm/')!;
    expect(confirm).toBeDefined();
    expect(mail.html).toContain(`href="${confirm}"`);
    // What the requester typed is named, not quoted: the mail goes to an address that has not
    // asked for anything yet.
    expect(mail.text).toContain('matching vendor as typed in the request');
    expect(mail.text).not.toContain('Microsoft');
    // The expiry as people read a time (it was the raw 2026-11-26T08:00:00.000Z).
    expect(mail.text).toContain('The link works until 2026-11-26 08:00 UTC.');
    expect(mail.html).toContain('The link works until 2026-11-26 08:00 UTC.');
    // Nothing is delivered to a pending subscription; confirming makes it active.
    const confirmed = await service.confirm(tokenOf(confirm));
    expect(confirmed.subscription.status).toBe('active');
    subs.email = { manage: confirmed.manage_url };
    // The link expires after 48 hours.
    const late = await service.create({ channel: 'email', email: 'late@example.org' }, 'caller-1');
    expect(late.subscription.status).toBe('pending');
    await smtp.waitFor(2);
    const lateLink = linkIn(smtp.to('late@example.org')[0]!.text ?? '', 'https://pulse.example.org/pulse/confirm/')!;
    at('2026-11-26T08:00:01.000Z');
    await expect(service.confirm(tokenOf(lateLink))).rejects.toThrow(/expired/);
    at('2026-11-24T08:00:00.000Z');
  });

  it('a webhook must answer a signed ping; its secret is shown once', async () => {
    const created = await service.create({ channel: 'webhook', url: hooks.url('/kev'), filter: { kev_only: true } }, 'caller-1');
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(created.manage_url).toMatch(/^https:\/\/pulse\.example\.org\/pulse\/s\/[A-Za-z0-9_-]{22}$/);
    expect(created.subscription.status).toBe('active');
    const ping = hooks.on('/kev')[0]!;
    expect(ping.headers['x-vulnintel-event']).toBe('ping');
    expect(verifySignature(created.secret!, ping.headers['x-vulnintel-signature'] as string, ping.body, seconds())).toBe(true);
    expect(verifySignature('whsec_wrong', ping.headers['x-vulnintel-signature'] as string, ping.body, seconds())).toBe(false);
    expect(typeof ping.json.text).toBe('string');
    hooks.setSecret('/kev', created.secret!);
    subs.kev = { manage: created.manage_url!, secret: created.secret! };
    // The secret is not in what the manage link shows.
    expect(JSON.stringify(await service.get(tokenOf(created.manage_url!)))).not.toContain(created.secret!);
  });

  it('a webhook that does not answer the ping with 2xx is refused, naming url', async () => {
    hooks.respond('/broken', [404]);
    const err = await service.create({ channel: 'webhook', url: hooks.url('/broken') }, 'caller-1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PulseInputError);
    expect((err as PulseInputError).field).toBe('url');
    expect((err as Error).message).toMatch(/HTTP 404/);
  });

  it('a loopback webhook is refused without --pulse-allow-private-webhooks, before any request', async () => {
    const strict = new PulseService({ store, links, mailer, allowPrivateWebhooks: false, now });
    const before = hooks.hits.length;
    for (const url of [hooks.url('/kev'), 'http://localhost:9/x', 'http://[::1]:9/x', 'http://169.254.169.254/latest/meta-data', 'http://10.0.0.1/x', 'http://100.100.100.200/x', 'http://[fd00:ec2::254]/x', 'http://[::ffff:127.0.0.1]/x']) {
      const err = await strict.create({ channel: 'webhook', url }, 'caller-2').catch((e: unknown) => e);
      expect(err, url).toBeInstanceOf(PulseInputError);
      expect((err as PulseInputError).field).toBe('url');
      expect((err as Error).message).toMatch(/internal addresses/);
    }
    expect(hooks.hits.length).toBe(before);
  });

  it('sets up the rest: a flaky webhook, a gone webhook, a daily digest, an unconfirmed address', async () => {
    const flaky = await service.create({ channel: 'webhook', url: hooks.url('/flaky'), filter: { min_severity: 'CRITICAL' } }, 'caller-1');
    hooks.setSecret('/flaky', flaky.secret!);
    subs.flaky = { manage: flaky.manage_url!, secret: flaky.secret! };
    const gone = await service.create({ channel: 'webhook', url: hooks.url('/gone'), filter: { vendor: 'apache' } }, 'caller-1');
    subs.gone = { manage: gone.manage_url! };
    await service.create({ channel: 'email', email: 'digest@example.org', cadence: 'daily' }, 'caller-1');
    await service.create({ channel: 'email', email: 'never@example.org' }, 'caller-1');
    await smtp.waitFor(4);
    const digestConfirm = linkIn(smtp.to('digest@example.org')[0]!.text ?? '', 'https://pulse.example.org/pulse/confirm/')!;
    await service.confirm(tokenOf(digestConfirm));
  });
});

describe('notify', () => {
  let mailsBefore: number;

  it('delivers exactly the expected messages after the first build', async () => {
    await publishChanges(dataDir, 'b1', b1);
    hooks.respond('/flaky', [500, 503]);
    hooks.respond('/gone', [410]);
    mailsBefore = smtp.messages.length;
    at('2026-11-24T09:05:00.000Z');
    const summary = await notify();
    expect(summary).toMatchObject({ changes: 5, subscriptions: 5, matched: 4, sent: 2, failed: 2, retried: 0, paused: 1 });

    // E-mail: Microsoft only, grouped by CVE, highest risk first, before → after, why, links.
    expect(smtp.messages.length).toBe(mailsBefore + 1);
    const mail = smtp.to('sec@example.org').at(-1)!;
    expect(mail.subject).toMatch(/^\[vulnintel\] new changes: 3 changes on 2 subjects/);
    const text = mail.text ?? '';
    expect(text.indexOf('CVE-2026-0001')).toBeLessThan(text.indexOf('CVE-2026-0002'));
    expect(text).toContain('https://pulse.example.org/pulse/cves/CVE-2026-0001');
    expect(text).toContain('in_kev: false → true');
    expect(text).toContain('service_risk: 41 → 88');
    expect(text).toContain('CISA added it to the KEV catalog');
    expect(text).not.toContain('CVE-2026-0003');
    expect(mail.html).toContain('Edge &lt;script&gt;alert(1)&lt;/script&gt; spoofing');
    expect(mail.html).not.toContain('<script>');
    const unsubscribe = rawHeader(mail, 'List-Unsubscribe');
    expect(unsubscribe).toMatch(/^<https:\/\/pulse\.example\.org\/pulse\/s\/[A-Za-z0-9_-]{22}\/unsubscribe>$/);
    expect(rawHeader(mail, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    const manage = linkIn(text, 'https://pulse.example.org/pulse/s/')!;
    expect((await service.get(tokenOf(manage))).address).toBe('Sec@example.org');

    // KEV webhook: one signed message with the KEV CVE only; `text` for Slack/Teams plus items.
    const kev = hooks.on('/kev').filter((h) => h.json.type === 'changes');
    expect(kev).toHaveLength(1);
    expect(kev[0]!.verified).toBe(true);
    expect(kev[0]!.headers['x-vulnintel-event']).toBe('changes');
    expect(kev[0]!.json).toMatchObject({ type: 'changes', total_changes: 2, total_subjects: 1, truncated: false, cadence: 'realtime', period: 'build:b1' });
    const items = kev[0]!.json.items as { cve_id: string; url: string; changes: { kind: string; before: unknown; after: unknown }[] }[];
    expect(items.map((i) => i.cve_id)).toEqual(['CVE-2026-0001']);
    expect(items[0]!.changes.map((c) => c.kind).sort()).toEqual(['kev_added', 'risk_changed']);
    expect(items[0]!.changes.find((c) => c.kind === 'kev_added')).toMatchObject({ before: { in_kev: false }, after: { in_kev: true } });
    expect(kev[0]!.json.text).toContain('CVE-2026-0001');
    // Slack's control characters escaped (a raw <!channel> pinged the whole channel, <url|label>
    // disguised a link); upstream text never makes a line of its own.
    const chat = kev[0]!.json.text as string;
    expect(chat).toContain('&lt;!channel&gt; &lt;https://evil.example/fix|Official fix&gt;');
    expect(chat).not.toMatch(/<!channel>|<https:/);
    for (const body of [chat, text]) expect(body).not.toMatch(/^Manage or unsubscribe: https:\/\/evil/m);

    // The 410 webhook is paused, with the reason on its manage info.
    const gone = await service.get(tokenOf(subs.gone!.manage!));
    expect(gone.status).toBe('paused');
    expect(gone.paused_reason).toMatch(/410/);
    // The flaky one failed once and says so.
    const flaky = await service.get(tokenOf(subs.flaky!.manage!));
    expect(flaky.deliveries[0]).toMatchObject({ status: 'failed', attempts: 1, error: 'HTTP 500' });
    expect(flaky.problem).toMatch(/failing/);
  });

  it('a second run sends nothing new (the failed delivery waits for its retry time)', async () => {
    const hits = hooks.hits.length;
    const mails = smtp.messages.length;
    at('2026-11-24T09:06:00.000Z');
    const summary = await notify();
    expect(summary).toMatchObject({ matched: 0, sent: 0, failed: 0, retried: 0, waiting: 1 });
    expect(hooks.hits.length).toBe(hits);
    expect(smtp.messages.length).toBe(mails);
  });

  it('a webhook failing twice then succeeding gets its message once', async () => {
    at('2026-11-24T09:11:00.000Z'); // 5 min backoff passed
    expect(await notify()).toMatchObject({ matched: 1, retried: 1, sent: 0, failed: 1 });
    at('2026-11-24T09:30:00.000Z'); // 10 min backoff passed
    expect(await notify()).toMatchObject({ matched: 1, retried: 1, sent: 1, failed: 0 });
    const attempts = hooks.on('/flaky').filter((h) => h.json.type === 'changes');
    expect(attempts.map((h) => h.status)).toEqual([500, 503, 200]);
    expect(new Set(attempts.map((h) => h.headers['x-vulnintel-delivery'])).size).toBe(1);
    expect(attempts.every((h) => h.verified)).toBe(true);
    expect(hooks.on('/flaky', true).filter((h) => h.json.type === 'changes')).toHaveLength(1);
    const view = await service.get(tokenOf(subs.flaky!.manage!));
    expect(view.deliveries[0]).toMatchObject({ status: 'sent', attempts: 3 });
    expect(view.problem).toBeNull();
    at('2026-11-24T12:00:00.000Z');
    expect(await notify()).toMatchObject({ matched: 0, sent: 0, failed: 0 });
  });

  it('the next day: realtime gets the new build only, the daily digest everything since it started, once', async () => {
    await publishChanges(dataDir, 'b2', [...b2, ...b1]);
    const mails = smtp.messages.length;
    at('2026-11-25T09:10:00.000Z');
    expect(await notify()).toMatchObject({ matched: 2, sent: 2, failed: 0 });
    expect(smtp.messages.length).toBe(mails + 2);
    const realtime = smtp.to('sec@example.org').at(-1)!;
    expect(realtime.subject).toMatch(/1 change on 1 subject/);
    expect(realtime.text).toContain('epss_score: 0.08 → 0.52');
    const digest = smtp.to('digest@example.org').filter((m) => m.subject?.includes('digest'));
    expect(digest).toHaveLength(1);
    expect(digest[0]!.subject).toMatch(/daily digest, 2026-11-25: 6 changes on 4 subjects/);
    expect(digest[0]!.text).toContain('cisco cisco-sa-ios-xe-2026');
    expect(digest[0]!.text).toContain('https://pulse.example.org/pulse/advisories/cisco/cisco-sa-ios-xe-2026');
    expect(smtp.to('never@example.org').filter((m) => !m.subject?.includes('Confirm'))).toHaveLength(0);
    at('2026-11-25T18:00:00.000Z');
    expect(await notify()).toMatchObject({ matched: 0, sent: 0 });
    expect(smtp.messages.length).toBe(mails + 2);
  });

  it('refuses, at delivery, a loopback webhook when the flag is off (checked on every delivery)', async () => {
    await publishChanges(dataDir, 'b3', [
      change({ build_id: 'b3', detected_at: '2026-11-26T09:00:00.000Z', kind: 'kev_added', vendors: ['oracle'], in_kev: true, service_severity: 'HIGH', service_risk: 70, why: 'KEV.' }),
      ...b2,
      ...b1,
    ]);
    const hits = hooks.on('/kev').length;
    at('2026-11-26T09:05:00.000Z');
    const summary = await notify(false);
    expect(summary.failed).toBeGreaterThanOrEqual(1);
    expect(hooks.on('/kev').length).toBe(hits);
    const view = await service.get(tokenOf(subs.kev!.manage!));
    expect(view.deliveries[0]!.status).toBe('failed');
    expect(view.deliveries[0]!.error).toMatch(/internal addresses/);
  });

  it('two notifiers at once send a delivery in flight once: the second leaves a row another run is sending', async () => {
    at('2026-11-26T10:00:00.000Z');
    const created = await service.create({ channel: 'webhook', url: hooks.url('/slow'), filter: { vendor: 'oracle' } }, 'caller-9');
    hooks.setSecret('/slow', created.secret!);
    const B3 = '2026-11-26T11:00:00.000Z';
    await publishChanges(dataDir, 'b3', [change({ build_id: 'b3', detected_at: B3, kind: 'new_cve', cve_id: 'CVE-2026-0009', title: 'Oracle DB flaw', vendors: ['oracle'], why: 'Published today.' }), ...b2, ...b1]);
    at('2026-11-26T11:05:00.000Z');
    // The receiver answers after 1.5 s: the first run's delivery is still `sending` when the
    // second run reads the ledger (cron and `update` overlap so).
    hooks.delay('/slow', 1500);
    const first = notify();
    await new Promise((r) => setTimeout(r, 300));
    const second = notify();
    await Promise.all([first, second]);
    const deliveries = hooks.on('/slow').filter((h) => h.headers['x-vulnintel-event'] !== 'ping');
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]!.verified).toBe(true);
    // Later runs: it was sent, nothing more goes.
    at('2026-11-26T11:30:00.000Z');
    await notify();
    expect(hooks.on('/slow').filter((h) => h.headers['x-vulnintel-event'] !== 'ping')).toHaveLength(1);
    expect((await service.get(tokenOf(created.manage_url!))).deliveries[0]).toMatchObject({ status: 'sent', attempts: 1 });
  });

  it('one-click unsubscribe deletes the subscription and its ledger', async () => {
    const mail = smtp.to('sec@example.org').at(-1)!;
    const target = /<([^>]+)>/.exec(rawHeader(mail, 'List-Unsubscribe')!)![1]!;
    const token = target.split('/').at(-2)!;
    expect(await service.unsubscribe(token)).toBe(true);
    expect(await service.unsubscribe(token)).toBe(false);
    await expect(service.get(tokenOf(subs.email!.manage!))).rejects.toThrow(/No subscription/);
  });
});
