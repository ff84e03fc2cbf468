/**
 * An alert e-mail whose sending the notifier cannot tell from a failure: the SMTP server kept the
 * message but its answer came too late (or a run died before recording it). The ledger retries
 * it, so the mailbox may get it twice; the copies are one message to every mail system (one
 * Message-ID, the delivery's), which shows it once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailer, type Mailer } from '../../lib/pulse/mailer.ts';
import { runNotify } from '../../lib/pulse/notify.ts';
import { change } from './changes-fixture.ts';
import { startServiceFixture, type ServiceFixture } from './service-fixture.ts';

process.env.VULNINTEL_QUIET = '1';

let clock = new Date('2026-11-24T08:00:00.000Z');
const now = () => new Date(clock);
let slowReply = 0;
let fixture: ServiceFixture;
let impatient: Mailer;

beforeAll(async () => {
  fixture = await startServiceFixture({ now, limits: {}, smtp: { replyDelayMs: () => slowReply } });
  // Gives up on an answer after 400 ms (the real one waits 30 s; the case is the same).
  impatient = createMailer(fixture.smtp.url, 'vulnintel <pulse@pulse.example.org>', 400);
});
afterAll(async () => {
  impatient?.close();
  await fixture?.close();
});

describe('an alert e-mail sent again after an answer that did not come', () => {
  it('carries the same Message-ID, the delivery\'s, on every attempt', async () => {
    const { service, smtp, store, links, dataDir } = fixture;
    await service.create({ channel: 'email', email: 'ops@example.org', filter: { vendor: 'acme' } }, 'caller-1');
    await smtp.waitFor(1);
    const confirm = /\/pulse\/confirm\/([A-Za-z0-9_-]{22})/.exec(smtp.messages[0]!.text ?? '')![1]!;
    await service.confirm(confirm);

    const changes = [change({ build_id: 'b1', detected_at: '2026-11-24T09:00:00.000Z', kind: 'new_cve', vendors: ['acme'], why: 'Published.' })];
    const common = { dataDir, store, links, mailer: impatient, allowPrivateWebhooks: true, now, changes };
    slowReply = 1500;
    clock = new Date('2026-11-24T09:05:00.000Z');
    expect(await runNotify(common)).toMatchObject({ sent: 0, failed: 1 });
    await smtp.waitFor(2);
    slowReply = 0;
    clock = new Date('2026-11-24T09:11:00.000Z');
    expect(await runNotify(common)).toMatchObject({ retried: 1, sent: 1 });

    const alerts = smtp.to('ops@example.org').filter((m) => !m.subject?.includes('Confirm'));
    expect(alerts).toHaveLength(2);
    const delivery = alerts[0]!.headers.get('x-vulnintel-delivery') as string;
    expect(alerts[1]!.headers.get('x-vulnintel-delivery')).toBe(delivery);
    expect(alerts.map((m) => m.messageId)).toEqual([`<${delivery}@pulse.example.org>`, `<${delivery}@pulse.example.org>`]);
    // The confirmation mail is no alert: a Message-ID of its own.
    expect(smtp.messages[0]!.messageId).not.toContain(delivery);
    // Every mail of ours says it is automatic (RFC 3834): no vacation reply comes back to it.
    for (const mail of [smtp.messages[0]!, ...alerts]) expect(mail.headers.get('auto-submitted')).toBe('auto-generated');
  });
});
