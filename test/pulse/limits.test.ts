/**
 * What one stranger can do to someone else's subscriptions: nothing. The per-address counts are
 * per webhook URL (not per host: Slack's hooks share one), and a pending e-mail subscription,
 * which anyone may request for any address, does not fill that address's allowance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PulseService } from '../../lib/pulse/service.ts';
import { startServiceFixture, type ServiceFixture } from './service-fixture.ts';
import type { WebhookReceiver } from './sinks.ts';

let fixture: ServiceFixture;
let hooks: WebhookReceiver;
let service: PulseService;

beforeAll(async () => {
  fixture = await startServiceFixture({ limits: { createsPerCallerPerHour: 100, createsPerAddressPerHour: 3, subscriptionsPerAddress: 2 } });
  ({ hooks, service } = fixture);
});

afterAll(async () => {
  await fixture?.close();
});

describe('per-address limits', () => {
  it("a stranger's pending requests do not lock the address's owner out", async () => {
    // Two unconfirmed requests for the victim (the allowance is 2).
    for (const caller of ['stranger-1', 'stranger-2']) await service.create({ channel: 'email', email: 'victim@example.org' }, caller);
    // The owner asks: still accepted (a full allowance counted the pending ones).
    const own = await service.create({ channel: 'email', email: 'Victim@example.org' }, 'owner');
    expect(own.subscription.status).toBe('pending');
  });

  it("one mailbox's sub-addresses (bob+1@, bob+2@, RFC 5233) share its hourly allowance", async () => {
    // The allowance is 3 per hour: bob@, bob+1@ and BOB+2@ are one mailbox's three.
    for (const email of ['bob@example.org', 'bob+1@example.org', 'BOB+2@Example.org']) await service.create({ channel: 'email', email }, `caller-${email}`);
    await expect(service.create({ channel: 'email', email: 'bob+3@example.org' }, 'caller-4')).rejects.toThrow(/per hour for one e-mail address/);
    // Another mailbox is untouched, and a local part that only starts with "+" is its own.
    expect((await service.create({ channel: 'email', email: 'bobby@example.org' }, 'caller-5')).subscription.status).toBe('pending');
    expect((await service.create({ channel: 'email', email: '+bob@example.org' }, 'caller-6')).subscription.status).toBe('pending');
  });

  it("a Gmail mailbox's dotted spellings and its googlemail.com twin share its hourly allowance (Gmail ignores the dots of a name)", async () => {
    for (const email of ['alice.smith@gmail.com', 'a.lice.smith@gmail.com', 'Alice.S.mith+x@GoogleMail.com']) await service.create({ channel: 'email', email }, `caller-${email}`);
    await expect(service.create({ channel: 'email', email: 'alicesmith@gmail.com' }, 'caller-g4')).rejects.toThrow(/per hour for one e-mail address/);
    // Elsewhere a dot is part of the name: another mailbox.
    expect((await service.create({ channel: 'email', email: 'alicesmith@example.org' }, 'caller-g5')).subscription.status).toBe('pending');
    expect((await service.create({ channel: 'email', email: 'alice.smith@example.org' }, 'caller-g6')).subscription.status).toBe('pending');
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
