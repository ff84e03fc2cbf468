/**
 * An alert e-mail the mail server refuses. Every refusal of the recipient, "550 5.1.1 No such
 * user" included, is retried with backoff like any failed delivery (PULSE §5: only a webhook
 * answering 410 is paused; smtp-server answers 550 5.1.1 to any recipient its handler refuses,
 * and a relay says it of a mailbox it cannot verify for now). A message too large for the
 * server (552) is not sent again. The manage page gives the reply code and its meaning, never
 * the server's words or address.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailer } from '../../lib/pulse/mailer.ts';
import { formatNotifySummary, runNotify } from '../../lib/pulse/notify.ts';
import { change } from './changes-fixture.ts';
import { startServiceFixture, tokenOf, type ServiceFixture } from './service-fixture.ts';

process.env.VULNINTEL_QUIET = '1';

let clock = new Date('2026-11-24T08:00:00.000Z');
const now = () => new Date(clock);
/** RCPT TO replies per address, once the subscriptions are confirmed. */
const refusals = new Map<string, { code: number; message: string }>();
/** Replies to a message's DATA, per recipient. */
const messageRefusals = new Map<string, { code: number; message: string }>();
let fixture: ServiceFixture;

beforeAll(async () => {
  fixture = await startServiceFixture({ now, limits: {}, smtp: { refuseRecipient: (address) => refusals.get(address) ?? null, refuseMessage: ([to]) => messageRefusals.get(to ?? '') ?? null } });
});
afterAll(async () => fixture?.close());

async function subscribe(email: string): Promise<string> {
  const { service, smtp } = fixture;
  const before = smtp.messages.length;
  await service.create({ channel: 'email', email, filter: { vendor: 'acme' } }, `caller-${email}`);
  await smtp.waitFor(before + 1);
  const confirm = /\/pulse\/confirm\/([A-Za-z0-9_-]{22})/.exec(smtp.messages.at(-1)!.text ?? '')![1]!;
  return tokenOf((await service.confirm(confirm)).manage_url);
}

describe('an alert e-mail refused by the mail server', () => {
  it('a mailbox that does not exist (550 5.1.1 to RCPT TO) and one full for now (452): both retried, delivered once the server takes them', async () => {
    const { service, smtp } = fixture;
    const gone = await subscribe('gone@example.org');
    const full = await subscribe('full@example.org');
    refusals.set('gone@example.org', { code: 550, message: '5.1.1 No such user here (relay mx-internal-7.corp)' });
    refusals.set('full@example.org', { code: 452, message: 'Mailbox full' });

    const b1 = change({ build_id: 'b1', detected_at: '2026-11-24T09:00:00.000Z', kind: 'new_cve', vendors: ['acme'], why: 'Published.' });
    clock = new Date('2026-11-24T09:05:00.000Z');
    const first = await runNotify({ ...fixture.notify, changes: [b1] });
    expect(first).toMatchObject({ matched: 2, sent: 0, failed: 2, paused: 0 });

    const goneView = await service.get(gone);
    expect(goneView.status).toBe('active');
    expect(goneView.deliveries).toMatchObject([{ status: 'failed', attempts: 1 }]);
    expect(goneView.deliveries[0]!.next_attempt_at).not.toBeNull();
    // Its reply code, not its words (they describe the operator's set-up).
    expect(goneView.deliveries[0]!.error).toBe('SMTP 550: the mail server says this mailbox does not exist');

    const fullView = await service.get(full);
    expect(fullView.status).toBe('active');
    expect(fullView.deliveries).toMatchObject([{ status: 'failed', attempts: 1 }]);
    expect(fullView.deliveries[0]!.next_attempt_at).not.toBeNull();
    expect(fullView.deliveries[0]!.error).toBe('SMTP 452: the mail server cannot take mail for this address right now');

    // Later: both retries are due and the server takes both; each gets the one message, once.
    refusals.delete('gone@example.org');
    refusals.delete('full@example.org');
    clock = new Date('2026-11-24T10:05:00.000Z');
    expect(await runNotify({ ...fixture.notify, changes: [b1] })).toMatchObject({ retried: 2, sent: 2, failed: 0 });
    for (const address of ['gone@example.org', 'full@example.org']) {
      const alerts = smtp.to(address).filter((m) => !m.subject?.includes('Confirm'));
      expect(alerts, address).toHaveLength(1);
      expect(alerts[0]!.text, address).toContain('Published.');
    }
    // Nothing sent twice.
    clock = new Date('2026-11-24T10:35:00.000Z');
    expect(await runNotify({ ...fixture.notify, changes: [b1] })).toMatchObject({ sent: 0, retried: 0 });
  });

  it('the message refused as too large (552 after DATA): not retried, the subscription goes on and gets the next build', async () => {
    const { service, smtp } = fixture;
    const big = await subscribe('big@example.org');
    messageRefusals.set('big@example.org', { code: 552, message: '5.3.4 Message size exceeds fixed limit' });
    const b3 = change({ build_id: 'b3', detected_at: '2026-11-24T11:00:00.000Z', kind: 'new_cve', vendors: ['acme'], why: 'Published.' });
    clock = new Date('2026-11-24T11:05:00.000Z');
    const asked = () => smtp.recipients.filter((r) => r === 'big@example.org').length;
    expect(await runNotify({ ...fixture.notify, changes: [b3] })).toMatchObject({ failed: 1, paused: 0 });
    const view = await service.get(big);
    expect(view.status).toBe('active');
    expect(view.deliveries).toMatchObject([{ status: 'abandoned', attempts: 1, next_attempt_at: null }]);
    expect(view.deliveries[0]!.error).toBe('not sent, not to be tried again: SMTP 552: the mail server refuses this message as too large');

    // Ten minutes later, past the first retry's time: the refused message is not tried again.
    messageRefusals.delete('big@example.org');
    clock = new Date('2026-11-24T11:15:00.000Z');
    const before = asked();
    await runNotify({ ...fixture.notify, changes: [b3] });
    expect(asked()).toBe(before);
    // The next build is another message: sent.
    const b4 = change({ build_id: 'b4', detected_at: '2026-11-24T12:00:00.000Z', kind: 'kev_added', vendors: ['acme'], in_kev: true, why: 'KEV.' });
    clock = new Date('2026-11-24T12:05:00.000Z');
    await runNotify({ ...fixture.notify, changes: [b3, b4] });
    const alerts = smtp.to('big@example.org').filter((m) => !m.subject?.includes('Confirm'));
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.text).toContain('KEV.');
    expect(alerts[0]!.text).not.toContain('Published.');
  });

  it('the mail server down: the manage page says so without its address, the log has it', async () => {
    const { service, store, links, dataDir } = fixture;
    const down = await subscribe('down@example.org');
    const mailer = createMailer('smtp://127.0.0.1:9', 'vulnintel <pulse@pulse.example.org>', 2000);
    const b5 = change({ build_id: 'b5', detected_at: '2026-11-24T13:00:00.000Z', kind: 'new_cve', vendors: ['acme'], why: 'Published.' });
    clock = new Date('2026-11-24T13:05:00.000Z');
    try {
      const summary = await runNotify({ dataDir, store, links, mailer, allowPrivateWebhooks: true, now, changes: [b5] });
      expect(summary.failed).toBeGreaterThanOrEqual(1);
    } finally {
      mailer.close();
    }
    const view = await service.get(down);
    expect(view.deliveries).toMatchObject([{ status: 'failed', error: "SMTP: the service's mail server could not be reached, or stopped answering" }]);
    expect(JSON.stringify(view)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
  });

  it('refusals that may be the operator\'s set-up are retried, the subscriptions kept active: relay denied, no status code, a policy refusal of the message', async () => {
    const { service } = fixture;
    const relay = await subscribe('relay@example.org');
    const bare = await subscribe('bare@example.org');
    const policy = await subscribe('policy@example.org');
    refusals.set('relay@example.org', { code: 554, message: '5.7.1 Relay access denied' });
    refusals.set('bare@example.org', { code: 550, message: 'Rejected' });
    messageRefusals.set('policy@example.org', { code: 550, message: '5.7.26 Unauthenticated email is not accepted (DMARC)' });
    const b6 = change({ build_id: 'b6', detected_at: '2026-11-24T14:00:00.000Z', kind: 'new_cve', vendors: ['acme'], why: 'Published.' });
    clock = new Date('2026-11-24T14:05:00.000Z');
    expect(await runNotify({ ...fixture.notify, changes: [b6] })).toMatchObject({ paused: 0 });
    for (const token of [relay, bare, policy]) {
      const view = await service.get(token);
      expect(view.status).toBe('active');
      expect(view.deliveries).toMatchObject([{ status: 'failed', attempts: 1 }]);
      expect(view.deliveries[0]!.next_attempt_at).not.toBeNull();
    }
    expect((await service.get(relay)).deliveries[0]!.error).toBe("SMTP 554: the service's mail server did not take the message (at RCPT)");
    expect((await service.get(policy)).deliveries[0]!.error).toBe('SMTP 550: the mail server refuses this message');
  });
});
