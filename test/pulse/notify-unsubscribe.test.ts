/**
 * A subscription deleted (one-click unsubscribe, or its manage page) while its message is in
 * flight: the message that went out is counted as sent, not as failed, and the run goes on. The
 * ledger row went with the subscription, and recording the outcome threw "no delivery …",
 * which notify counted as a failure (and logged as one).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNotify } from '../../lib/pulse/notify.ts';
import { startPostgres, type PostgresServer } from '../helpers/postgres.ts';
import { change } from './changes-fixture.ts';
import { startServiceFixture, tokenOf, type ServiceFixture } from './service-fixture.ts';

process.env.VULNINTEL_QUIET = '1';

let postgres: PostgresServer;
beforeAll(async () => {
  postgres = await startPostgres();
});
afterAll(async () => postgres?.stop());

describe.each(['sqlite', 'postgres'] as const)('unsubscribing while a delivery is in flight (%s)', (kind) => {
  let clock = new Date('2026-11-24T08:00:00.000Z');
  const now = () => new Date(clock);
  let fixture: ServiceFixture;

  beforeAll(async () => {
    const pulseDb = kind === 'postgres' ? await postgres.createDatabase('pulse_unsubscribe') : undefined;
    fixture = await startServiceFixture({ now, limits: { createsPerCallerPerHour: 100, createsPerAddressPerHour: 100 }, ...(pulseDb ? { pulseDb } : {}) });
  });
  afterAll(async () => fixture?.close());

  it('counts the message that went out as sent; nothing is left of the subscription', async () => {
    const { service, hooks, store } = fixture;
    const created = await service.create({ channel: 'webhook', url: hooks.url('/leaving'), filter: { vendor: 'acme' } }, 'caller-1');
    hooks.setSecret('/leaving', created.secret!);
    const changes = [change({ build_id: 'b1', detected_at: '2026-11-24T09:00:00.000Z', kind: 'new_cve', vendors: ['acme'], why: 'Published.' })];
    clock = new Date('2026-11-24T09:05:00.000Z');
    // The receiver takes 1 s: the subscription is deleted while its message is on the way.
    hooks.delay('/leaving', 1000);
    const run = runNotify({ ...fixture.notify, changes });
    await new Promise((r) => setTimeout(r, 300));
    expect(await service.unsubscribe(tokenOf(created.manage_url!))).toBe(true);
    expect(await run).toMatchObject({ matched: 1, sent: 1, failed: 0 });
    expect(hooks.on('/leaving', true).filter((h) => h.json.type === 'changes')).toHaveLength(1);
    expect(await store.activeSubscriptions()).toEqual([]);
    // A later run sends nothing more.
    clock = new Date('2026-11-24T09:30:00.000Z');
    expect(await runNotify({ ...fixture.notify, changes })).toMatchObject({ subscriptions: 0, sent: 0, failed: 0 });
  });
});
