/**
 * A webhook host with no address (NXDOMAIN). Where internal addresses are refused, it is refused
 * in the same words as a name resolving to one (ssrf.test.ts says why); where the operator allows
 * them (--pulse-allow-private-webhooks), the words say only that it does not resolve, not that
 * internal addresses are refused. The resolver is replaced here: no test asks the network.
 */
import { describe, expect, it, vi } from 'vitest';

vi.mock('node:dns', async (importOriginal) => {
  const dns = await importOriginal<typeof import('node:dns')>();
  const lookup = (hostname: string, _options: unknown, callback: (err: NodeJS.ErrnoException | null) => void) =>
    callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
  return { ...dns, default: { ...dns, lookup }, lookup };
});

const { checkWebhookUrl } = await import('../../lib/pulse/ssrf.ts');
const refusal = (allowPrivate: boolean) => checkWebhookUrl(new URL('http://hooks.example.org/x'), allowPrivate).then(() => null, (e: unknown) => (e as Error).message);

describe('a webhook host that does not resolve', () => {
  it('without the flag: the words of an internal name', async () => {
    expect(await refusal(false)).toBe('hooks.example.org does not resolve to a public address: webhooks may not reach internal addresses (the operator can allow them with --pulse-allow-private-webhooks)');
  });

  it('with the flag: only that it does not resolve', async () => {
    expect(await refusal(true)).toBe('hooks.example.org does not resolve (ENOTFOUND)');
  });
});
