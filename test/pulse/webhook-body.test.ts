/** webhookBody past its bound with one subject: that subject's changes are cut down, and the body fits. */
import { describe, expect, it } from 'vitest';
import { PulseLinks } from '../../lib/pulse/links.ts';
import { composeMessage } from '../../lib/pulse/message.ts';
import type { Delivery } from '../../lib/pulse/types.ts';
import { MAX_WEBHOOK_BODY_BYTES, webhookBody } from '../../lib/pulse/webhook-body.ts';
import { change } from './changes-fixture.ts';

const delivery: Delivery = {
  id: 'd1',
  subscriptionId: 's1',
  periodKey: 'weekly:2026-W48',
  rangeFrom: '2026-11-16T00:00:00.000Z',
  rangeTo: '2026-11-23T00:00:00.000Z',
  items: 0,
  status: 'sending',
  attempts: 1,
  firstAttemptAt: '2026-11-23T00:05:00.000Z',
  lastAttemptAt: '2026-11-23T00:05:00.000Z',
  nextAttemptAt: null,
  sentAt: null,
  lastError: null,
};

describe('webhookBody', () => {
  it('one subject with thousands of changes: its changes are cut, the body fits and says so', () => {
    const rows = Array.from({ length: 3000 }, (_, k) =>
      change({ build_id: `b${k}`, detected_at: '2026-11-20T00:00:00.000Z', kind: 'epss_crossed', cve_id: 'CVE-2026-0001', why: `EPSS crossed 0.10 ${'again and again '.repeat(12)}` }),
    );
    const message = composeMessage(rows, { cadence: 'weekly', periodKey: delivery.periodKey, links: new PulseLinks('https://pulse.example.org') });
    const body = webhookBody(message, delivery, 'weekly');
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_WEBHOOK_BODY_BYTES);
    const json = JSON.parse(body) as { truncated: boolean; text: string; items: { changes: unknown[] }[]; total_changes: number };
    expect(json.truncated).toBe(true);
    expect(json.total_changes).toBe(3000);
    expect(json.items).toHaveLength(1);
    expect(json.items[0]!.changes.length).toBeGreaterThan(0);
    expect(json.items[0]!.changes.length).toBeLessThan(3000);
    expect(json.text).toMatch(/some changes of the last subject are left out: see the change feed\.\)$/);
  });
});
