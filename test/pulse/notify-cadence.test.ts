/**
 * Changing a subscription's cadence while one of its deliveries waits for a retry: the service
 * promises that a new digest cadence starts with the next period, not with a digest right away,
 * and the retried delivery (made for the old cadence) must not undo that.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNotify } from '../../lib/pulse/notify.ts';
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

describe('a realtime subscription made daily while its delivery waits for a retry', () => {
  it('gets the retried message, then its first digest the next day, not the same day', async () => {
    const { service, hooks } = fixture;
    const created = await service.create({ channel: 'webhook', url: hooks.url('/switch'), filter: { vendor: 'acme' } }, 'caller-1');
    hooks.setSecret('/switch', created.secret!);
    const token = tokenOf(created.manage_url!);
    const first = change({ build_id: 'b1', detected_at: '2026-11-24T09:00:00.000Z', kind: 'new_cve', vendors: ['acme'], why: 'Published.' });
    const second = change({ build_id: 'b2', detected_at: '2026-11-24T12:00:00.000Z', kind: 'kev_added', vendors: ['acme'], in_kev: true, why: 'KEV.' });
    const common = fixture.notify;
    const messages = () => hooks.on('/switch', true).filter((h) => h.json.type === 'changes');

    hooks.respond('/switch', [503]);
    clock = new Date('2026-11-24T09:05:00.000Z');
    expect(await runNotify({ ...common, changes: [first] })).toMatchObject({ failed: 1 });
    clock = new Date('2026-11-24T09:07:00.000Z');
    await service.update(token, { cadence: 'daily' });

    // The retry goes out (the realtime message it was), and the day's digest waits for tomorrow.
    clock = new Date('2026-11-24T09:11:00.000Z');
    expect(await runNotify({ ...common, changes: [first] })).toMatchObject({ retried: 1, sent: 1 });
    expect(messages()).toHaveLength(1);
    // It says what it is: the realtime message, not a "daily digest, b1".
    expect(messages()[0]!.json).toMatchObject({ cadence: 'realtime', period: 'build:b1' });
    expect(messages()[0]!.json.text).toMatch(/^vulnintel — new changes:/);
    clock = new Date('2026-11-24T12:05:00.000Z');
    expect(await runNotify({ ...common, changes: [first, second] })).toMatchObject({ sent: 0 });
    expect(messages()).toHaveLength(1);
    clock = new Date('2026-11-25T00:05:00.000Z');
    expect(await runNotify({ ...common, changes: [first, second] })).toMatchObject({ sent: 1 });
    expect(messages().map((h) => h.json.period)).toEqual(['build:b1', 'daily:2026-11-25']);
    expect(messages()[1]!.json.total_changes).toBe(1);
  });
});
