/**
 * One store test suite, run against the two real implementations: SQLite (node:sqlite, a file
 * in a temporary folder) and PostgreSQL (a real server started for this file).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPulseStore } from '../../lib/pulse/store/open.ts';
import { loadMigrations } from '../../lib/pulse/store/migrations.ts';
import type { PulseStore } from '../../lib/pulse/store/store.ts';
import type { Subscription, TokenRecord } from '../../lib/pulse/types.ts';
import { startPostgres, type PostgresServer } from '../helpers/postgres.ts';

let postgres: PostgresServer;
let sqliteDir: string;
let databases = 0;

beforeAll(async () => {
  sqliteDir = await mkdtemp(join(tmpdir(), 'vulnintel-pulse-store-'));
  postgres = await startPostgres();
});

afterAll(async () => {
  await postgres?.stop();
  await rm(sqliteDir, { recursive: true, force: true });
});

/** A fresh, empty database of that kind; `same` reopens the last one (a second host). */
async function freshSpec(kind: 'sqlite' | 'postgres'): Promise<string> {
  databases++;
  return kind === 'sqlite' ? join(sqliteDir, `db${databases}`, 'pulse.db') : postgres.createDatabase(`pulse_${databases}`);
}

const T0 = '2026-11-20T10:00:00.000Z';

function subscription(id: string, over: Partial<Subscription> = {}): Subscription {
  return {
    id,
    channel: 'email',
    address: `${id}@example.org`,
    addressKey: `${id}@example.org`,
    secret: null,
    filter: { vendor: 'microsoft', min_severity: 'HIGH', kinds: ['kev_added', 'new_cve'] },
    cadence: 'realtime',
    status: 'active',
    pausedReason: null,
    createdAt: T0,
    createdBy: '4:203.0.113.9',
    confirmedAt: T0,
    cursorAt: T0,
    lastPeriod: null,
    updatedAt: T0,
    ...over,
  };
}

function token(hash: string, subscriptionId: string, over: Partial<TokenRecord> = {}): TokenRecord {
  return { tokenHash: hash, subscriptionId, purpose: 'manage', createdAt: T0, expiresAt: null, ...over };
}

describe.each(['sqlite', 'postgres'] as const)('pulse store on %s', (kind) => {
  let store: PulseStore;
  let spec: string;

  beforeAll(async () => {
    spec = await freshSpec(kind);
    store = await openPulseStore(spec, sqliteDir);
  });
  afterAll(async () => store?.close());

  it('applies every migration once; reopening applies nothing again', async () => {
    const latest = Math.max(...loadMigrations(kind).map((m) => m.version));
    expect(store.kind).toBe(kind);
    expect(await store.schemaVersion()).toBe(latest);
    const again = await openPulseStore(spec, sqliteDir);
    try {
      expect(await again.schemaVersion()).toBe(latest);
    } finally {
      await again.close();
    }
  });

  it('stores a subscription and finds it by a token of the right purpose, unexpired', async () => {
    const s = subscription('sub-a', { channel: 'webhook', address: 'https://hooks.example.org/x', addressKey: 'hooks.example.org', secret: 'whsec_abc' });
    await store.insertSubscription(s, [
      token('hash-manage-a', 'sub-a'),
      token('hash-confirm-a', 'sub-a', { purpose: 'confirm', expiresAt: '2026-11-22T10:00:00.000Z' }),
    ]);
    expect(await store.getSubscription('sub-a')).toEqual(s);
    expect(await store.subscriptionByToken('hash-manage-a', 'manage', T0)).toEqual(s);
    expect(await store.subscriptionByToken('hash-manage-a', 'confirm', T0)).toBeNull();
    expect((await store.subscriptionByToken('hash-confirm-a', 'confirm', '2026-11-22T09:59:59.000Z'))?.id).toBe('sub-a');
    expect(await store.subscriptionByToken('hash-confirm-a', 'confirm', '2026-11-22T10:00:00.000Z')).toBeNull();
    expect(await store.subscriptionByToken('nope', 'manage', T0)).toBeNull();
    await store.addToken(token('hash-manage-a2', 'sub-a'));
    expect((await store.subscriptionByToken('hash-manage-a2', 'manage', T0))?.id).toBe('sub-a');
    await store.deleteToken('hash-manage-a2');
    expect(await store.subscriptionByToken('hash-manage-a2', 'manage', T0)).toBeNull();
  });

  it('refuses a second subscription with the same id and a token hash used twice, leaving nothing half-written', async () => {
    await expect(store.insertSubscription(subscription('sub-a'), [])).rejects.toThrow();
    await expect(store.insertSubscription(subscription('sub-dup'), [token('hash-manage-a', 'sub-dup')])).rejects.toThrow();
    expect(await store.getSubscription('sub-dup')).toBeNull();
  });

  it('patches only the members given, and bumps updated_at', async () => {
    const later = '2026-11-21T08:00:00.000Z';
    expect(await store.updateSubscription('sub-a', { cadence: 'weekly', filter: { kev_only: true }, status: 'paused', pausedReason: 'by its owner' }, later)).toBe(true);
    const s = await store.getSubscription('sub-a');
    expect(s).toMatchObject({ cadence: 'weekly', filter: { kev_only: true }, status: 'paused', pausedReason: 'by its owner', updatedAt: later, secret: 'whsec_abc', cursorAt: T0 });
    expect(await store.updateSubscription('missing', { cadence: 'daily' }, later)).toBe(false);
  });

  it('lists active subscriptions only, counts the confirmed ones by address', async () => {
    await store.insertSubscription(subscription('sub-b', { addressKey: 'shared@example.org' }), []);
    await store.insertSubscription(subscription('sub-c', { addressKey: 'shared@example.org', status: 'pending', confirmedAt: null }), []);
    expect((await store.activeSubscriptions()).map((s) => s.id)).toEqual(['sub-b']);
    // The pending one is not counted: anyone may request one for any address.
    expect(await store.countSubscriptionsByAddress('shared@example.org')).toBe(1);
    expect(await store.countSubscriptionsByAddress('other@example.org')).toBe(0);
  });

  it('purges unconfirmed subscriptions past the cutoff and expired tokens, nothing else', async () => {
    await store.insertSubscription(subscription('sub-old', { status: 'pending', confirmedAt: null, createdAt: '2026-11-01T00:00:00.000Z' }), [
      token('hash-old', 'sub-old', { purpose: 'confirm', expiresAt: '2026-11-03T00:00:00.000Z' }),
    ]);
    const purged = await store.purgeExpired('2026-11-13T10:00:00.000Z', T0);
    expect(purged).toBe(1);
    expect(await store.getSubscription('sub-old')).toBeNull();
    expect(await store.getSubscription('sub-c')).not.toBeNull();
    // sub-a's confirm token expires 2026-11-22: still there at T0, gone after.
    await store.purgeExpired('2026-11-13T10:00:00.000Z', '2026-11-23T00:00:00.000Z');
    expect(await store.subscriptionByToken('hash-confirm-a', 'confirm', T0)).toBeNull();
    expect(await store.subscriptionByToken('hash-manage-a', 'manage', T0)).not.toBeNull();
  });

  it('keeps one ledger row per subscription and period: written before sending, then failed, retried, sent', async () => {
    const first = await store.beginDelivery({ id: 'd1', subscriptionId: 'sub-b', periodKey: 'build:b2', rangeFrom: T0, rangeTo: '2026-11-21T00:00:00.000Z', items: 3, at: '2026-11-21T00:01:00.000Z' });
    expect(first).toMatchObject({ id: 'd1', status: 'sending', attempts: 1, items: 3, sentAt: null, nextAttemptAt: null });
    expect(await store.beginDelivery({ id: 'd1bis', subscriptionId: 'sub-b', periodKey: 'build:b2', rangeFrom: T0, rangeTo: T0, items: 1, at: T0 })).toBeNull();
    expect((await store.openDelivery('sub-b'))?.id).toBe('d1');

    await store.finishDelivery('d1', { status: 'failed', at: '2026-11-21T00:01:01.000Z', error: 'HTTP 503', nextAttemptAt: '2026-11-21T00:06:01.000Z' });
    expect(await store.openDelivery('sub-b')).toMatchObject({ status: 'failed', lastError: 'HTTP 503', nextAttemptAt: '2026-11-21T00:06:01.000Z' });
    expect((await store.getSubscription('sub-b'))?.cursorAt).toBe(T0);

    const retried = await store.retryDelivery('d1', 1, '2026-11-21T00:07:00.000Z');
    expect(retried).toMatchObject({ status: 'sending', attempts: 2, lastAttemptAt: '2026-11-21T00:07:00.000Z', nextAttemptAt: null });
    // A second notifier that read the same row (1 attempt) loses the race: no double send.
    expect(await store.retryDelivery('d1', 1, '2026-11-21T00:07:00.000Z')).toBeNull();
    await store.finishDelivery('d1', { status: 'sent', at: '2026-11-21T00:07:01.000Z', cursorAt: '2026-11-21T00:00:00.000Z', lastPeriod: null });
    expect(await store.openDelivery('sub-b')).toBeNull();
    expect((await store.getSubscription('sub-b'))?.cursorAt).toBe('2026-11-21T00:00:00.000Z');
    expect((await store.deliveries('sub-b', 10))[0]).toMatchObject({ id: 'd1', status: 'sent', sentAt: '2026-11-21T00:07:01.000Z', lastError: null, attempts: 2 });
  });

  it('writes a ledger row only while the subscription is active with its cursor where the range starts (a run holding an older read sent it again)', async () => {
    await store.insertSubscription(subscription('sub-cursor'), []);
    const begin = (id: string, rangeFrom: string) =>
      store.beginDelivery({ id, subscriptionId: 'sub-cursor', periodKey: `build:${id}`, rangeFrom, rangeTo: '2026-11-21T00:00:00.000Z', items: 1, at: '2026-11-21T00:01:00.000Z' });
    // Another run delivered up to 2026-11-20T12:00: a range read from T0 is stale.
    await store.updateSubscription('sub-cursor', { cursorAt: '2026-11-20T12:00:00.000Z' }, T0);
    expect(await begin('stale', T0)).toBeNull();
    await store.updateSubscription('sub-cursor', { status: 'paused' }, T0);
    expect(await begin('paused', '2026-11-20T12:00:00.000Z')).toBeNull();
    expect(await store.beginDelivery({ id: 'gone', subscriptionId: 'no-such-sub', periodKey: 'build:x', rangeFrom: T0, rangeTo: T0, items: 1, at: T0 })).toBeNull();
    await store.updateSubscription('sub-cursor', { status: 'active' }, T0);
    expect(await begin('fresh', '2026-11-20T12:00:00.000Z')).toMatchObject({ id: 'fresh', status: 'sending' });
    expect((await store.deliveries('sub-cursor', 10)).map((d) => d.id)).toEqual(['fresh']);
    // The cursor moves forward only from where the caller read it.
    expect(await store.advanceSubscription('sub-cursor', T0, { cursorAt: '2026-11-20T11:00:00.000Z' }, T0)).toBe(false);
    expect(await store.advanceSubscription('sub-cursor', '2026-11-20T12:00:00.000Z', { cursorAt: '2026-11-20T13:00:00.000Z' }, T0)).toBe(true);
    expect((await store.getSubscription('sub-cursor'))?.cursorAt).toBe('2026-11-20T13:00:00.000Z');
  });

  it('a finished delivery never moves its subscription\'s cursor back (resumed while the delivery was being sent: it went back to the range\'s end)', async () => {
    await store.insertSubscription(subscription('sub-forward'), []);
    await store.beginDelivery({ id: 'fwd', subscriptionId: 'sub-forward', periodKey: 'build:f1', rangeFrom: T0, rangeTo: '2026-11-20T11:00:00.000Z', items: 1, at: T0 });
    // Meanwhile its owner paused and resumed it: it goes on from 12:00.
    await store.updateSubscription('sub-forward', { cursorAt: '2026-11-20T12:00:00.000Z' }, T0);
    await store.finishDelivery('fwd', { status: 'sent', at: '2026-11-20T12:01:00.000Z', cursorAt: '2026-11-20T11:00:00.000Z', lastPeriod: null });
    expect((await store.getSubscription('sub-forward'))?.cursorAt).toBe('2026-11-20T12:00:00.000Z');
    expect((await store.deliveries('sub-forward', 1))[0]).toMatchObject({ status: 'sent' });
    // Forward it moves.
    await store.beginDelivery({ id: 'fwd2', subscriptionId: 'sub-forward', periodKey: 'build:f2', rangeFrom: '2026-11-20T12:00:00.000Z', rangeTo: '2026-11-20T13:00:00.000Z', items: 1, at: T0 });
    await store.finishDelivery('fwd2', { status: 'abandoned', at: T0, error: 'HTTP 410', cursorAt: '2026-11-20T13:00:00.000Z', lastPeriod: null, pauseReason: 'gone' });
    expect(await store.getSubscription('sub-forward')).toMatchObject({ cursorAt: '2026-11-20T13:00:00.000Z', status: 'paused' });
  });

  it('abandoning with a pause reason pauses the subscription and moves its cursor and period', async () => {
    await store.beginDelivery({ id: 'd2', subscriptionId: 'sub-b', periodKey: 'daily:2026-11-22', rangeFrom: '2026-11-21T00:00:00.000Z', rangeTo: '2026-11-22T00:00:00.000Z', items: 1, at: '2026-11-22T01:00:00.000Z' });
    await store.finishDelivery('d2', { status: 'abandoned', at: '2026-11-22T01:00:01.000Z', error: 'HTTP 410 Gone', cursorAt: '2026-11-22T00:00:00.000Z', lastPeriod: 'daily:2026-11-22', pauseReason: 'the webhook answered 410 Gone' });
    expect(await store.getSubscription('sub-b')).toMatchObject({ status: 'paused', pausedReason: 'the webhook answered 410 Gone', cursorAt: '2026-11-22T00:00:00.000Z', lastPeriod: 'daily:2026-11-22' });
    expect((await store.deliveries('sub-b', 10)).map((d) => [d.id, d.status])).toEqual([
      ['d2', 'abandoned'],
      ['d1', 'sent'],
    ]);
    expect((await store.deliveries('sub-b', 1)).length).toBe(1);
  });

  it('deleting a subscription deletes its tokens and ledger', async () => {
    expect(await store.deleteSubscription('sub-b')).toBe(true);
    expect(await store.deleteSubscription('sub-b')).toBe(false);
    expect(await store.deliveries('sub-b', 10)).toEqual([]);
    expect(await store.deleteSubscription('sub-a')).toBe(true);
    expect(await store.subscriptionByToken('hash-manage-a', 'manage', T0)).toBeNull();
  });

  it('counts hits per key and fixed window, and prunes old windows', async () => {
    const w1 = '2026-11-20T10:00:00.000Z';
    const w2 = '2026-11-20T11:00:00.000Z';
    expect(await store.hitCounter('create:4:203.0.113.9', w1)).toBe(1);
    expect(await store.hitCounter('create:4:203.0.113.9', w1)).toBe(2);
    expect(await store.hitCounter('create:4:203.0.113.10', w1)).toBe(1);
    expect(await store.hitCounter('create:4:203.0.113.9', w2)).toBe(1);
    await store.pruneCounters(w2);
    expect(await store.hitCounter('create:4:203.0.113.9', w1)).toBe(1);
    expect(await store.hitCounter('create:4:203.0.113.9', w2)).toBe(2);
  });

  it('confirms a pending subscription once: the patch and its manage token in one step; a second time writes nothing', async () => {
    await store.insertSubscription(subscription('sub-confirm', { status: 'pending', confirmedAt: null }), [
      token('hash-confirm-c', 'sub-confirm', { purpose: 'confirm', expiresAt: '2026-11-22T10:00:00.000Z' }),
    ]);
    const later = '2026-11-20T11:00:00.000Z';
    const patch = { status: 'active', confirmedAt: later, cursorAt: later } as const;
    expect(await store.confirmSubscription('sub-confirm', patch, token('hash-manage-c1', 'sub-confirm'), later)).toBe(true);
    expect(await store.getSubscription('sub-confirm')).toMatchObject({ status: 'active', confirmedAt: later, cursorAt: later, updatedAt: later });
    expect((await store.subscriptionByToken('hash-manage-c1', 'manage', later))?.id).toBe('sub-confirm');
    // Again (and once paused): nothing changes, no token is added.
    const again = '2026-11-20T12:00:00.000Z';
    expect(await store.confirmSubscription('sub-confirm', { ...patch, confirmedAt: again }, token('hash-manage-c2', 'sub-confirm'), again)).toBe(false);
    await store.updateSubscription('sub-confirm', { status: 'paused' }, again);
    expect(await store.confirmSubscription('sub-confirm', patch, token('hash-manage-c3', 'sub-confirm'), again)).toBe(false);
    expect(await store.subscriptionByToken('hash-manage-c2', 'manage', again)).toBeNull();
    expect(await store.subscriptionByToken('hash-manage-c3', 'manage', again)).toBeNull();
    expect(await store.getSubscription('sub-confirm')).toMatchObject({ status: 'paused', confirmedAt: later });
    expect(await store.confirmSubscription('missing', patch, token('hash-manage-c4', 'missing'), again)).toBe(false);
  });

  it('confirming one subscription several times at once (two hosts on PostgreSQL): one wins, one manage token', async () => {
    // SQLite: one connection, its transactions queued. Two connections in one process cannot
    // race: node:sqlite waits for a lock on the thread the holder needs to commit (hosts are
    // processes, each waiting on its own thread).
    const other = kind === 'postgres' ? await openPulseStore(spec, sqliteDir) : store;
    try {
      await store.insertSubscription(subscription('sub-confirm-race', { status: 'pending', confirmedAt: null }), []);
      const patch = { status: 'active', confirmedAt: T0, cursorAt: T0 } as const;
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) => (i % 2 ? store : other).confirmSubscription('sub-confirm-race', patch, token(`hash-race-${i}`, 'sub-confirm-race'), T0)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const minted = await Promise.all(results.map((_, i) => store.subscriptionByToken(`hash-race-${i}`, 'manage', T0)));
      expect(minted.filter((s) => s !== null)).toHaveLength(1);
    } finally {
      if (other !== store) await other.close();
    }
  });

  it('takes a hit back from a counter, never below zero, and only that key and window', async () => {
    const w = '2026-11-20T12:00:00.000Z';
    expect(await store.hitCounter('unhit:a', w)).toBe(1);
    expect(await store.hitCounter('unhit:a', w)).toBe(2);
    expect(await store.hitCounter('unhit:b', w)).toBe(1);
    await store.unhitCounter('unhit:a', w);
    expect(await store.hitCounter('unhit:a', w)).toBe(2);
    await store.unhitCounter('unhit:b', w);
    await store.unhitCounter('unhit:b', w);
    await store.unhitCounter('unhit:never', w);
    expect(await store.hitCounter('unhit:b', w)).toBe(1);
    expect(await store.hitCounter('unhit:never', w)).toBe(1);
  });

  it('two hosts (two connections to one database) never write two ledger rows for one period', async () => {
    const other = await openPulseStore(spec, sqliteDir);
    try {
      await store.insertSubscription(subscription('sub-race'), []);
      const attempts = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          (i % 2 ? store : other).beginDelivery({ id: `race-${i}`, subscriptionId: 'sub-race', periodKey: 'build:b9', rangeFrom: T0, rangeTo: T0, items: 1, at: T0 }),
        ),
      );
      expect(attempts.filter((d) => d !== null)).toHaveLength(1);
      expect(await other.hitCounter('race', T0)).toBe(1);
      expect(await store.hitCounter('race', T0)).toBe(2);
    } finally {
      await other.close();
    }
  });
});
