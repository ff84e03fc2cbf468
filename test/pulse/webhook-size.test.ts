/**
 * A webhook delivery stays within its bound (README: at most 100 subjects and 512 KiB). Only the
 * items were cut down: a digest whose `text` alone was past the bound (100 subjects with many
 * changes each) went out at 1.2 MB, with one item. Now the text is cut too, and says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WEBHOOK_BODY_BYTES, runNotify } from '../../lib/pulse/notify.ts';
import type { ChangeRow } from '../../lib/changes/model.ts';
import { change } from './changes-fixture.ts';
import { startServiceFixture, type ServiceFixture } from './service-fixture.ts';

process.env.VULNINTEL_QUIET = '1';

let clock = new Date('2026-11-24T08:00:00.000Z');
const now = () => new Date(clock);
let fixture: ServiceFixture;

beforeAll(async () => {
  fixture = await startServiceFixture({ now, clockSeconds: () => Math.floor(clock.getTime() / 1000), limits: {} });
});
afterAll(async () => fixture?.close());

/** `subjects` CVEs of `perSubject` risk changes each, with a long title and why. */
function busyBuild(buildId: string, at: string, subjects: number, perSubject: number): ChangeRow[] {
  const rows: ChangeRow[] = [];
  for (let s = 0; s < subjects; s++) {
    for (let k = 0; k < perSubject; k++) {
      rows.push(
        change({
          build_id: buildId,
          detected_at: at,
          kind: 'risk_changed',
          cve_id: `CVE-2026-${buildId}${String(s).padStart(4, '0')}`,
          service_risk: 90 - s * 0.1,
          before: JSON.stringify({ service_risk: 40 + k }),
          after: JSON.stringify({ service_risk: 41 + k }),
          why: `Risk rose ${'because of a long upstream explanation & more '.repeat(6)}`,
          title: `Remote code execution in <component> ${'with a long upstream title '.repeat(7)}`,
        }),
      );
    }
  }
  return rows;
}

describe('a webhook delivery past 512 KiB', () => {
  it('is cut to the bound: the text to its first lines, then the items, each saying so', async () => {
    const { service, hooks } = fixture;
    const created = await service.create({ channel: 'webhook', url: hooks.url('/big') }, 'caller-1');
    hooks.setSecret('/big', created.secret!);
    clock = new Date('2026-11-24T09:05:00.000Z');
    expect(await runNotify({ ...fixture.notify, changes: busyBuild('b1', '2026-11-24T09:00:00.000Z', 100, 40) })).toMatchObject({ sent: 1 });

    const hit = hooks.on('/big', true).find((h) => h.json.type === 'changes')!;
    expect(hit.verified).toBe(true);
    expect(Buffer.byteLength(hit.body)).toBeLessThanOrEqual(MAX_WEBHOOK_BODY_BYTES);
    expect(hit.json).toMatchObject({ total_changes: 4000, total_subjects: 100, truncated: true });
    const text = hit.json.text as string;
    expect(text.startsWith('vulnintel — new changes: 4000 changes on 100 subjects, highest risk first.')).toBe(true);
    expect(text).toMatch(/\(To keep this message small, this text is cut short; \d+ subjects are left out: see the change feed\.\)$/);
    // Cut between lines: every line of it is whole (the last before the note is a line of the message).
    const items = hit.json.items as { cve_id: string; changes: unknown[] }[];
    expect(items.length).toBeGreaterThanOrEqual(1);
    expect(items[0]!.cve_id).toBe('CVE-2026-b10000');
    expect(items[0]!.changes).toHaveLength(40);
  });

  it('a message within the bound is sent whole, as before', async () => {
    const { hooks } = fixture;
    clock = new Date('2026-11-24T10:05:00.000Z');
    expect(await runNotify({ ...fixture.notify, changes: busyBuild('b2', '2026-11-24T10:00:00.000Z', 3, 2) })).toMatchObject({ sent: 1 });
    const hit = hooks.on('/big', true).filter((h) => h.json.type === 'changes').at(-1)!;
    expect(hit.json).toMatchObject({ total_changes: 6, total_subjects: 3, truncated: false });
    expect(hit.json.text as string).not.toContain('To keep this message small');
    expect(hit.json.items as unknown[]).toHaveLength(3);
  });
});
