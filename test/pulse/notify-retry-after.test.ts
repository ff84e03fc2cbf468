/**
 * A webhook receiver refusing with `Retry-After` (429 Too Many Requests, as Slack's rate limit
 * answers, or 503 with an HTTP date) is not tried again before the time it asked for, up to the
 * 4 hours the backoff never exceeds. Notify retried after its own 5 minutes, 10, 20…, each
 * attempt refused again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNotify } from '../../lib/pulse/notify.ts';
import { parseRetryAfter } from '../../lib/retry-after.ts';
import { change } from './changes-fixture.ts';
import { startServiceFixture, tokenOf, type ServiceFixture } from './service-fixture.ts';

process.env.VULNINTEL_QUIET = '1';

let clock = new Date('2026-11-24T08:00:00.000Z');
const now = () => new Date(clock);
let fixture: ServiceFixture;

beforeAll(async () => {
  fixture = await startServiceFixture({ now, clockSeconds: () => Math.floor(clock.getTime() / 1000), limits: { createsPerCallerPerHour: 100, createsPerAddressPerHour: 100 } });
});
afterAll(async () => fixture?.close());

describe('Retry-After', () => {
  it('reads delay-seconds and HTTP dates (RFC 9110 §10.2.3)', () => {
    const at = Date.parse('2026-11-24T09:00:00.000Z');
    expect(parseRetryAfter('120', at)).toBe(120_000);
    expect(parseRetryAfter('Tue, 24 Nov 2026 11:00:00 GMT', at)).toBe(2 * 3600_000);
    expect(parseRetryAfter('Tue, 24 Nov 2026 08:00:00 GMT', at)).toBe(0);
    for (const bad of [undefined, '', '-5', '1.5', 'soon', '2026-11-24']) expect(parseRetryAfter(bad, at)).toBeNull();
  });

  it('a webhook refusing with Retry-After is tried again at that time, not after 5 minutes; at most 4 hours later', async () => {
    const { service, hooks } = fixture;
    const paths = { seconds: '/rate-limited', date: '/maintenance', far: '/far', short: '/short' } as const;
    const tokens: Record<string, string> = {};
    for (const [name, path] of Object.entries(paths)) {
      const created = await service.create({ channel: 'webhook', url: hooks.url(path), filter: { vendor: 'acme' } }, 'caller-1');
      hooks.setSecret(path, created.secret!);
      tokens[name] = tokenOf(created.manage_url!);
    }
    hooks.respond(paths.seconds, [{ status: 429, headers: { 'retry-after': '3600' } }]);
    hooks.respond(paths.date, [{ status: 503, headers: { 'retry-after': 'Tue, 24 Nov 2026 11:05:00 GMT' } }]);
    hooks.respond(paths.far, [{ status: 429, headers: { 'retry-after': String(2 * 86_400) } }]);
    hooks.respond(paths.short, [{ status: 429, headers: { 'retry-after': '1' } }]);
    const changes = [change({ build_id: 'b1', detected_at: '2026-11-24T09:00:00.000Z', kind: 'new_cve', vendors: ['acme'], why: 'Published.' })];

    clock = new Date('2026-11-24T09:05:00.000Z');
    expect(await runNotify({ ...fixture.notify, changes })).toMatchObject({ sent: 0, failed: 4 });
    const next = async (name: string) => (await service.get(tokens[name]!)).deliveries[0]!.next_attempt_at;
    expect(await next('seconds')).toBe('2026-11-24T10:05:00.000Z');
    expect(await next('date')).toBe('2026-11-24T11:05:00.000Z');
    expect(await next('far')).toBe('2026-11-24T13:05:00.000Z'); // 4 hours at most
    expect(await next('short')).toBe('2026-11-24T09:10:00.000Z'); // never sooner than the backoff

    // After the backoff's 5 minutes, only the one that asked for less is tried again.
    clock = new Date('2026-11-24T09:11:00.000Z');
    expect(await runNotify({ ...fixture.notify, changes })).toMatchObject({ retried: 1, sent: 1, waiting: 3 });
    expect(hooks.on(paths.seconds).filter((h) => h.json.type === 'changes')).toHaveLength(1);
    expect(hooks.on(paths.date).filter((h) => h.json.type === 'changes')).toHaveLength(1);

    clock = new Date('2026-11-24T10:06:00.000Z');
    expect(await runNotify({ ...fixture.notify, changes })).toMatchObject({ retried: 1, sent: 1, waiting: 2 });
    clock = new Date('2026-11-24T11:06:00.000Z');
    expect(await runNotify({ ...fixture.notify, changes })).toMatchObject({ retried: 1, sent: 1, waiting: 1 });
    clock = new Date('2026-11-24T13:06:00.000Z');
    expect(await runNotify({ ...fixture.notify, changes })).toMatchObject({ retried: 1, sent: 1, waiting: 0 });
    for (const path of Object.values(paths)) {
      const attempts = hooks.on(path).filter((h) => h.json.type === 'changes');
      expect(attempts.map((h) => h.status), path).toEqual([path === paths.date ? 503 : 429, 200]);
      expect(attempts.every((h) => h.verified)).toBe(true);
    }
  });
});
