/**
 * Pausing a subscription whose delivery is failing, then resuming it: the service promises that
 * a resumed subscription goes on "from now on" (what happened while it was paused is not sent),
 * and the failing delivery left behind must not move it back.
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
  fixture = await startServiceFixture({ now, limits: { createsPerCallerPerHour: 100, createsPerAddressPerHour: 100 } });
});
afterAll(async () => fixture?.close());

describe('resuming a subscription paused while its delivery was failing', () => {
  it('sends nothing of what happened while it was paused, and its cursor stays at the resume', async () => {
    const { service, hooks } = fixture;
    const created = await service.create({ channel: 'webhook', url: hooks.url('/down'), filter: { vendor: 'acme' } }, 'caller-1');
    hooks.setSecret('/down', created.secret!);
    const token = tokenOf(created.manage_url!);
    const before = change({ build_id: 'b1', detected_at: '2026-11-24T09:00:00.000Z', kind: 'new_cve', vendors: ['acme'], why: 'Published.' });
    const during = change({ build_id: 'b2', detected_at: '2026-11-25T09:00:00.000Z', kind: 'kev_added', vendors: ['acme'], in_kev: true, why: 'KEV.' });
    const after = change({ build_id: 'b3', detected_at: '2026-11-26T12:00:00.000Z', kind: 'epss_crossed', vendors: ['acme'], why: 'EPSS.' });
    const common = fixture.notify;

    // The receiver is down: the delivery of b1 fails and waits for its retry.
    hooks.respond('/down', [503]);
    clock = new Date('2026-11-24T09:05:00.000Z');
    expect(await runNotify({ ...common, changes: [before] })).toMatchObject({ failed: 1 });
    // Its owner pauses it; b2 is published meanwhile; a day and more later, it is resumed.
    await service.pause(token);
    clock = new Date('2026-11-25T09:05:00.000Z');
    await runNotify({ ...common, changes: [before, during] });
    clock = new Date('2026-11-26T10:00:00.000Z');
    const resumed = await service.resume(token);
    expect(resumed.status).toBe('active');

    clock = new Date('2026-11-26T10:05:00.000Z');
    await runNotify({ ...common, changes: [before, during] });
    clock = new Date('2026-11-26T12:05:00.000Z');
    await runNotify({ ...common, changes: [before, during, after] });

    const delivered = hooks
      .on('/down', true)
      .filter((h) => h.json.type === 'changes')
      .flatMap((h) => (h.json.items as { changes: { change_id: string }[] }[]).flatMap((i) => i.changes.map((c) => c.change_id)));
    expect(delivered).toEqual([after.change_id]);
    // The delivery it could not make is on its manage page as given up, not left open.
    const view = await service.get(token);
    expect(view.deliveries.map((d) => d.status)).toEqual(['sent', 'abandoned']);
    expect(view.deliveries[1]!.error).toMatch(/paused/);
  });
});
