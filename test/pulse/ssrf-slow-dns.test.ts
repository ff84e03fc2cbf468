/**
 * A webhook host whose name servers never answer: the check before a ping or a delivery gives up
 * within the webhook's timeout. It waited as long as the system resolver does (10 to 30 s),
 * outside the timeout, holding a subscriber's POST or a notify worker. The resolver is replaced
 * here by one that never answers: no test asks the network.
 */
import { describe, expect, it, vi } from 'vitest';

vi.mock('node:dns', async (importOriginal) => {
  const dns = await importOriginal<typeof import('node:dns')>();
  const lookup = () => {}; // never calls back
  return { ...dns, default: { ...dns, lookup }, lookup };
});

const { checkWebhookUrl, WebhookTargetError } = await import('../../lib/pulse/ssrf.ts');

describe('a webhook host whose name servers never answer', () => {
  it('is given up within the webhook timeout, saying so', async () => {
    const started = performance.now();
    const err = await checkWebhookUrl(new URL('https://hooks.example.org/x'), false, 300).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WebhookTargetError);
    expect((err as Error).message).toBe('hooks.example.org could not be resolved within 300 ms; try again later');
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
