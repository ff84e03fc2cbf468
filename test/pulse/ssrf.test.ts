/**
 * The SSRF guard: which addresses a webhook may reach, and that the connection itself (not
 * only the check before it) refuses a name resolving to an internal address — what stops DNS
 * rebinding, since the socket uses the address the guard checked.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkWebhookUrl, forbiddenRange, webhookDispatcher } from '../../lib/pulse/ssrf.ts';

describe('forbiddenRange', () => {
  const refused = [
    '127.0.0.1', '127.1.2.3', '0.0.0.0', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '100.100.100.200',
    '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', 'fd00:ec2::254', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '64:ff9b::a00:1', '2002:7f00:1::',
    // IPv4-compatible (::/96, as the URL parser writes them: `[::127.0.0.1]` is `[::7f00:1]`):
    // whatever IPv4 is inside, loopback, metadata or public.
    '::127.0.0.1', '::a9fe:a9fe', '::7f00:1', '::5db8:d822',
  ];
  for (const address of refused) it(`refuses ${address}`, () => expect(forbiddenRange(address)).not.toBeNull());
  for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:93.184.216.34']) {
    it(`allows ${address}`, () => expect(forbiddenRange(address)).toBeNull());
  }
});

describe('the webhook dispatcher connects only to the addresses it checked', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((_req, res) => res.end('reached'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a name resolving to loopback is refused at connect time without the flag', async () => {
    const dispatcher = webhookDispatcher(false, 2000);
    try {
      const err = await request(`http://localhost:${port}/`, { dispatcher }).catch((e: unknown) => e as Error & { cause?: Error });
      expect(err).toBeInstanceOf(Error);
      const said = `${(err as Error).message} ${(err as { cause?: Error }).cause?.message ?? ''}`;
      expect(said).toMatch(/internal addresses/);
      // The address the name resolved to is not told (see below).
      expect(said).not.toMatch(/127\.0\.0\.1|::1/);
    } finally {
      await dispatcher.close();
    }
  });

  it('and reached with the flag', async () => {
    const dispatcher = webhookDispatcher(true, 2000);
    try {
      const res = await request(`http://localhost:${port}/`, { dispatcher });
      expect(await res.body.text()).toBe('reached');
    } finally {
      await dispatcher.close();
    }
  });
});

describe('a refusal tells the caller nothing of what the server\'s resolver knows', () => {
  // Anyone may create a webhook subscription and read why it was refused: "db.corp resolves to
  // 10.0.0.5 (private)" mapped the internal names and addresses the server's resolver knows.
  const refusal = (url: string) => checkWebhookUrl(new URL(url), false).then(() => null, (e: unknown) => (e as Error).message);

  it('a name resolving to an internal address is refused without naming the address', async () => {
    const message = await refusal('http://localhost:9/hook');
    expect(message).toBe('localhost does not resolve to a public address: webhooks may not reach internal addresses (the operator can allow them with --pulse-allow-private-webhooks)');
  });

  it('an address written in the URL is named, with its range', async () => {
    expect(await refusal('http://10.0.0.1/hook')).toBe('10.0.0.1 is an internal address (private): webhooks may not reach internal addresses (the operator can allow them with --pulse-allow-private-webhooks)');
    expect(await refusal('http://[::ffff:169.254.169.254]/hook')).toMatch(/^\[::ffff:a9fe:a9fe\] is an internal address \(linkLocal\)/);
  });
});
