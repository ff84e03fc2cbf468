/**
 * What one stranger can do to someone else's subscriptions: nothing. The per-address counts are
 * per webhook URL (not per host: Slack's hooks share one), and a pending e-mail subscription,
 * which anyone may request for any address, does not fill that address's allowance.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PulseLinks } from '../../lib/pulse/links.ts';
import { createMailer, type Mailer } from '../../lib/pulse/mailer.ts';
import { PulseService } from '../../lib/pulse/service.ts';
import { openPulseStore } from '../../lib/pulse/store/open.ts';
import type { PulseStore } from '../../lib/pulse/store/store.ts';
import { startSmtpSink, startWebhookReceiver, type SmtpSink, type WebhookReceiver } from './sinks.ts';

let dataDir: string;
let store: PulseStore;
let smtp: SmtpSink;
let hooks: WebhookReceiver;
let mailer: Mailer;
let service: PulseService;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'vulnintel-limits-'));
  store = await openPulseStore(undefined, dataDir);
  smtp = await startSmtpSink();
  hooks = await startWebhookReceiver();
  mailer = createMailer(smtp.url, 'vulnintel <pulse@pulse.example.org>');
  service = new PulseService({
    store,
    links: new PulseLinks('https://pulse.example.org'),
    mailer,
    allowPrivateWebhooks: true,
    limits: { createsPerCallerPerHour: 100, createsPerAddressPerHour: 3, subscriptionsPerAddress: 2 },
  });
});

afterAll(async () => {
  mailer?.close();
  await store?.close();
  await smtp?.close();
  await hooks?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('per-address limits', () => {
  it("a stranger's pending requests do not lock the address's owner out", async () => {
    // Two unconfirmed requests for the victim (the allowance is 2).
    for (const caller of ['stranger-1', 'stranger-2']) await service.create({ channel: 'email', email: 'victim@example.org' }, caller);
    // The owner asks: still accepted (a full allowance counted the pending ones).
    const own = await service.create({ channel: 'email', email: 'Victim@example.org' }, 'owner');
    expect(own.subscription.status).toBe('pending');
  });

  it('webhooks count per URL: hooks on one host (hooks.slack.com) do not share an allowance', async () => {
    // Two subscriptions fill one URL's allowance...
    for (let i = 0; i < 2; i++) await service.create({ channel: 'webhook', url: hooks.url('/services/T1/B1/aaa') }, `caller-${i}`);
    await expect(service.create({ channel: 'webhook', url: hooks.url('/services/T1/B1/aaa') }, 'caller-x')).rejects.toThrow(/this webhook URL already has 2 subscriptions/);
    // ...its hourly count too (the third attempt counted, refused or not).
    await expect(service.create({ channel: 'webhook', url: hooks.url('/services/T1/B1/aaa') }, 'caller-z')).rejects.toThrow(/per hour for one webhook URL/);
    // ...and another channel's hook on the same host is created all the same.
    const other = await service.create({ channel: 'webhook', url: hooks.url('/services/T2/B2/bbb') }, 'caller-y');
    expect(other.subscription.status).toBe('active');
  });
});
