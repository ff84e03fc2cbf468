/**
 * A mail server that is down — here one behind a firewall that lets the connection open and then
 * says nothing — costs each message the mailer's whole timeout. Notify tried every e-mail
 * subscription in turn (30 s per 4 of them by default: hours for thousands), every webhook
 * waiting behind them, and `update` and `poll` waiting for their notify. After
 * MAIL_SERVER_FAILURES failures of the server itself in a row, the run tries no other e-mail;
 * those subscriptions are left untouched for the next run, which delivers each once. Refusals of
 * single recipients (550 5.1.1) are no failure of the server: every address is still tried.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailer } from '../../lib/pulse/mailer.ts';
import { MAIL_SERVER_FAILURES, runNotify } from '../../lib/pulse/notify.ts';
import { change } from './changes-fixture.ts';
import { startServiceFixture, tokenOf, type ServiceFixture } from './service-fixture.ts';
import { startSmtpSink } from './sinks.ts';

process.env.VULNINTEL_QUIET = '1';

let clock = new Date('2026-11-24T08:00:00.000Z');
const now = () => new Date(clock);
let fixture: ServiceFixture;
let silent: Server;
const sockets: Socket[] = [];
let connections = 0;
const FROM = 'vulnintel <pulse@pulse.example.org>';
const EMAILS = 10;

beforeAll(async () => {
  fixture = await startServiceFixture({ now, limits: { createsPerCallerPerHour: 100, createsPerAddressPerHour: 100 } });
  // Accepts connections, never greets.
  silent = createServer((socket) => {
    connections++;
    sockets.push(socket);
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => silent?.close(() => resolve()));
  await fixture?.close();
});

/** E-mail subscriptions to `acme`, confirmed, then one webhook subscription (created last). */
async function subscribe(prefix: string): Promise<void> {
  const { service, smtp, hooks } = fixture;
  const before = smtp.messages.length;
  for (let i = 0; i < EMAILS; i++) await service.create({ channel: 'email', email: `${prefix}${i}@example.org`, filter: { vendor: prefix } }, 'caller-1');
  await smtp.waitFor(before + EMAILS);
  for (const mail of smtp.messages.slice(before)) {
    await service.confirm(tokenOf(/https:\/\/pulse\.example\.org\/pulse\/confirm\/[A-Za-z0-9_-]{22}/.exec(mail.text ?? '')![0]));
  }
  const hook = await service.create({ channel: 'webhook', url: hooks.url(`/${prefix}`), filter: { vendor: prefix } }, 'caller-1');
  hooks.setSecret(`/${prefix}`, hook.secret!);
}

describe('a mail server that is down', () => {
  it('is tried a few times, not once per subscription; the webhook is delivered; the rest wait for the next run', async () => {
    await subscribe('acme');
    const changes = [change({ build_id: 'b1', detected_at: '2026-11-24T09:00:00.000Z', kind: 'new_cve', vendors: ['acme'], why: 'Published.' })];
    const down = createMailer(`smtp://127.0.0.1:${(silent.address() as AddressInfo).port}`, FROM, 300);
    clock = new Date('2026-11-24T09:05:00.000Z');
    try {
      const summary = await runNotify({ ...fixture.notify, mailer: down, concurrency: 1, changes });
      expect(summary).toMatchObject({ subscriptions: EMAILS + 1, sent: 1, failed: MAIL_SERVER_FAILURES, mailDeferred: EMAILS - MAIL_SERVER_FAILURES });
    } finally {
      down.close();
    }
    expect(connections).toBe(MAIL_SERVER_FAILURES);
    expect(fixture.hooks.on('/acme', true).filter((h) => h.json.type === 'changes')).toHaveLength(1);

    // The mail server is back: the next runs deliver every e-mail once (those tried, after their backoff).
    const mails = fixture.smtp.messages.length;
    clock = new Date('2026-11-24T09:11:00.000Z');
    expect(await runNotify({ ...fixture.notify, changes })).toMatchObject({ sent: EMAILS, failed: 0, mailDeferred: 0 });
    clock = new Date('2026-11-24T10:00:00.000Z');
    expect(await runNotify({ ...fixture.notify, changes })).toMatchObject({ sent: 0, failed: 0 });
    const alerts = fixture.smtp.messages.slice(mails);
    expect(alerts).toHaveLength(EMAILS);
    expect(new Set(alerts.map((m) => m.to && !Array.isArray(m.to) ? m.to.text : '')).size).toBe(EMAILS);
  });

  it('a server refusing recipients one by one (550 5.1.1) is up: every address is tried', async () => {
    await subscribe('zeta');
    const refusing = await startSmtpSink({ refuseRecipient: () => ({ code: 550, message: '5.1.1 no such user' }) });
    const mailer = createMailer(refusing.url, FROM, 2000);
    clock = new Date('2026-11-24T11:05:00.000Z');
    const changes = [change({ build_id: 'b2', detected_at: '2026-11-24T11:00:00.000Z', kind: 'new_cve', vendors: ['zeta'], why: 'Published.' })];
    try {
      expect(await runNotify({ ...fixture.notify, mailer, concurrency: 1, changes })).toMatchObject({ failed: EMAILS, sent: 1, mailDeferred: 0 });
    } finally {
      mailer.close();
      await refusing.close();
    }
    expect(refusing.recipients.filter((r) => r.startsWith('zeta'))).toHaveLength(EMAILS);
  });
});
