/**
 * A delivery sent while the store cannot record it (its disk full): the message went, so the run
 * counts it sent and says the ledger could not record it, rather than "failed" with the store's
 * "nothing was changed". The row stays `sending`: within the lease no run sends it again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PulseUnavailableError } from '../../lib/pulse/errors.ts';
import { runNotify } from '../../lib/pulse/notify.ts';
import { PulseService } from '../../lib/pulse/service.ts';
import type { PulseStore } from '../../lib/pulse/store/store.ts';
import { change } from './changes-fixture.ts';
import { startServiceFixture, type ServiceFixture } from './service-fixture.ts';

process.env.VULNINTEL_QUIET = '1';

let clock = new Date('2026-11-24T08:00:00.000Z');
const now = () => new Date(clock);
let fixture: ServiceFixture;

beforeAll(async () => {
  fixture = await startServiceFixture({ now, limits: {} });
});
afterAll(async () => fixture?.close());

describe('a delivery the store cannot record', () => {
  it('is counted sent, said so, left `sending`, and not sent again within the lease', async () => {
    const { hooks, store, links, mailer } = fixture;
    const service = new PulseService({ store, links, mailer, allowPrivateWebhooks: true, now, changes: async () => [] });
    const hook = await service.create({ channel: 'webhook', url: hooks.url('/full'), filter: { vendor: 'acme' } }, 'caller-1');
    hooks.setSecret('/full', hook.secret!);
    const b1 = change({ build_id: 'b1', detected_at: '2026-11-24T09:00:00.000Z', kind: 'new_cve', vendors: ['acme'], why: 'Published.' });
    clock = new Date('2026-11-24T09:05:00.000Z');

    // The disk fills between the ledger row and its "sent".
    const full = new Proxy(store, {
      get(target, key) {
        if (key === 'finishDelivery') return async () => Promise.reject(new PulseUnavailableError('The subscription store cannot take changes right now (its disk is full); nothing was changed.'));
        const value = Reflect.get(target, key) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as PulseStore;
    const first = await runNotify({ ...fixture.notify, store: full, changes: [b1] });
    expect(first).toMatchObject({ matched: 1, sent: 1, failed: 0 });
    const delivered = () => hooks.on('/full', true).filter((h) => h.json.type === 'changes').length;
    expect(delivered()).toBe(1);

    clock = new Date('2026-11-24T09:06:00.000Z');
    const second = await runNotify({ ...fixture.notify, changes: [b1] });
    expect(second).toMatchObject({ sent: 0, inFlight: 1 });
    expect(delivered()).toBe(1);
  });
});
