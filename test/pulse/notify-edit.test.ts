/**
 * Editing a subscription's filter while one of its deliveries waits for a retry: the retry sends
 * what the filter matches now. When it matches none of the delivery's changes any more, nothing
 * is sent ("Nothing is sent when nothing matched"), and the delivery is closed saying why: it
 * sent an empty alert, "0 changes on 0 subjects", and recorded it as sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNotify } from '../../lib/pulse/notify.ts';
import { hashToken } from '../../lib/pulse/tokens.ts';
import { change } from './changes-fixture.ts';
import { startServiceFixture, tokenOf, type ServiceFixture } from './service-fixture.ts';

process.env.VULNINTEL_QUIET = '1';

let clock = new Date('2026-11-24T08:00:00.000Z');
const now = () => new Date(clock);
let fixture: ServiceFixture;

beforeAll(async () => {
  fixture = await startServiceFixture({ now, limits: {} });
});
afterAll(async () => fixture?.close());

describe('a filter edited while its delivery waits for a retry', () => {
  it('sends nothing when the filter no longer matches the delivery\'s changes, and the next build is delivered as usual', async () => {
    const { service, hooks, store } = fixture;
    const created = await service.create({ channel: 'webhook', url: hooks.url('/edited'), filter: { vendor: 'acme' } }, 'caller-1');
    hooks.setSecret('/edited', created.secret!);
    const token = tokenOf(created.manage_url!);
    const first = change({ build_id: 'b1', detected_at: '2026-11-24T09:00:00.000Z', kind: 'new_cve', vendors: ['acme'], why: 'Published.' });
    const second = change({ build_id: 'b2', detected_at: '2026-11-24T12:00:00.000Z', kind: 'kev_added', vendors: ['acme'], in_kev: true, why: 'KEV.' });
    const common = fixture.notify;
    const messages = () => hooks.on('/edited', true).filter((h) => h.json.type === 'changes');

    hooks.respond('/edited', [503]);
    clock = new Date('2026-11-24T09:05:00.000Z');
    expect(await runNotify({ ...common, changes: [first] })).toMatchObject({ failed: 1 });
    // The owner narrows the filter to KEV additions; b1's change is a new CVE.
    clock = new Date('2026-11-24T09:07:00.000Z');
    await service.update(token, { filter: { vendor: 'acme', kinds: ['kev_added'] } });

    clock = new Date('2026-11-24T09:11:00.000Z');
    expect(await runNotify({ ...common, changes: [first] })).toMatchObject({ sent: 0, failed: 0 });
    expect(messages()).toHaveLength(0);
    const sub = (await store.subscriptionByToken(hashToken(token), 'manage', clock.toISOString()))!;
    expect(sub.cursorAt).toBe(first.detected_at);
    // The delivery is closed as not sent, saying why (the manage page shows it).
    const view = await service.get(token);
    expect(view.deliveries).toHaveLength(1);
    expect(view.deliveries[0]).toMatchObject({ status: 'abandoned', sent_at: null, next_attempt_at: null });
    expect(view.deliveries[0]!.error).toBe('not sent: the filter was changed after the first attempt (HTTP 503) and matches none of the changes it was to carry');

    // The next build's matching change goes out, alone.
    clock = new Date('2026-11-24T12:05:00.000Z');
    expect(await runNotify({ ...common, changes: [first, second] })).toMatchObject({ sent: 1 });
    expect(messages()).toHaveLength(1);
    expect(messages()[0]!.json).toMatchObject({ period: 'build:b2', total_changes: 1 });
  });
});
