/**
 * Two notifier runs that overlap across a publish (cron's run, started on the previous snapshot,
 * still busy when `update` publishes and starts its own): every change reaches a subscription
 * once. The runs read different snapshots, so they see different changes; the ledger, not the
 * timing, must keep them from sending the same change twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeRow } from '../../lib/changes/model.ts';
import { runNotify } from '../../lib/pulse/notify.ts';
import { startPostgres, type PostgresServer } from '../helpers/postgres.ts';
import { change } from './changes-fixture.ts';
import { startServiceFixture, type ServiceFixture } from './service-fixture.ts';

process.env.VULNINTEL_QUIET = '1';

let postgres: PostgresServer;
beforeAll(async () => {
  postgres = await startPostgres();
});
afterAll(async () => postgres?.stop());

// Each store (one host's SQLite file; PostgreSQL, which several hosts' notifiers share).
describe.each(['sqlite', 'postgres'] as const)('notify runs overlapping across a publish (%s)', (kind) => {
  let clock = new Date('2026-11-24T08:00:00.000Z');
  const now = () => new Date(clock);
  let fixture: ServiceFixture;

  beforeAll(async () => {
    const pulseDb = kind === 'postgres' ? await postgres.createDatabase('pulse_overlap') : undefined;
    fixture = await startServiceFixture({ now, limits: { createsPerCallerPerHour: 100, createsPerAddressPerHour: 100 }, ...(pulseDb ? { pulseDb } : {}) });
  });
  afterAll(async () => fixture?.close());

  /** The change ids a webhook path received in its deliveries (pings left out), in order. */
  function deliveredChangeIds(path: string): string[] {
    return fixture.hooks
      .on(path, true)
      .filter((h) => h.json.type === 'changes')
      .flatMap((h) => (h.json.items as { changes: { change_id: string }[] }[]).flatMap((item) => item.changes.map((c) => c.change_id)));
  }

  it('a run holding a subscription read before the other run delivered to it sends only what is left (it sent the first build again)', async () => {
    const { service, hooks } = fixture;
    // Created in this order, so a run with concurrency 1 reaches /busy first, then /acme.
    const busy = await service.create({ channel: 'webhook', url: hooks.url('/busy'), filter: { vendor: 'busyco' } }, 'caller-1');
    hooks.setSecret('/busy', busy.secret!);
    clock = new Date('2026-11-24T08:01:00.000Z');
    const acme = await service.create({ channel: 'webhook', url: hooks.url('/acme'), filter: { vendor: 'acme' } }, 'caller-1');
    hooks.setSecret('/acme', acme.secret!);

    const b1: ChangeRow[] = [
      change({ build_id: 'b1', detected_at: '2026-11-24T09:00:00.000Z', kind: 'new_cve', vendors: ['acme'], why: 'Published.' }),
      change({ build_id: 'b1', detected_at: '2026-11-24T09:00:00.000Z', kind: 'new_cve', vendors: ['busyco'], why: 'Published.' }),
    ];
    const b2: ChangeRow[] = [change({ build_id: 'b2', detected_at: '2026-11-24T10:00:00.000Z', kind: 'kev_added', vendors: ['acme'], in_kev: true, why: 'KEV.' })];
    clock = new Date('2026-11-24T10:05:00.000Z');

    // The later run (snapshot b2) reads the subscriptions, then spends 1.5 s on /busy; meanwhile
    // the earlier run (snapshot b1) delivers b1 to /acme and finishes.
    hooks.delay('/busy', 1500);
    const common = fixture.notify;
    const later = runNotify({ ...common, changes: [...b1, ...b2], concurrency: 1 });
    await new Promise((r) => setTimeout(r, 300));
    await runNotify({ ...common, changes: b1 });
    await later;

    const ids = deliveredChangeIds('/acme');
    expect(new Set(ids).size).toBe(ids.length);
    // Nothing lost either: b1's change and b2's, each once (a run after these picks up what they left).
    await runNotify({ ...common, changes: [...b1, ...b2] });
    expect(deliveredChangeIds('/acme').sort()).toEqual([b1[0]!.change_id, b2[0]!.change_id].sort());
    expect(deliveredChangeIds('/busy')).toEqual([b1[1]!.change_id]);
  });

  it('two runs starting together on snapshots one build apart write one ledger row between them (each wrote its own and both sent the first build)', async () => {
    const { service, hooks } = fixture;
    clock = new Date('2026-11-24T11:00:00.000Z');
    const pair = await service.create({ channel: 'webhook', url: hooks.url('/pair'), filter: { vendor: 'pairco' } }, 'caller-1');
    hooks.setSecret('/pair', pair.secret!);
    const b3 = [change({ build_id: 'b3', detected_at: '2026-11-24T12:00:00.000Z', kind: 'new_cve', vendors: ['pairco'], why: 'Published.' })];
    const b4 = [change({ build_id: 'b4', detected_at: '2026-11-24T13:00:00.000Z', kind: 'new_cve', vendors: ['pairco'], why: 'Published.' })];
    clock = new Date('2026-11-24T13:05:00.000Z');
    // A slow receiver: neither run has finished when the other writes its ledger row.
    hooks.delay('/pair', 1000);
    const common = fixture.notify;
    await Promise.all([runNotify({ ...common, changes: b3 }), runNotify({ ...common, changes: [...b3, ...b4] })]);
    const ids = deliveredChangeIds('/pair');
    expect(new Set(ids).size).toBe(ids.length);
    await runNotify({ ...common, changes: [...b3, ...b4] });
    expect(deliveredChangeIds('/pair').sort()).toEqual([b3[0]!.change_id, b4[0]!.change_id].sort());
  });
});
