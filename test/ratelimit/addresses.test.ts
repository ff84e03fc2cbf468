/**
 * Caller grouping with real source addresses: IPv6 /64 grouping and the single private-network
 * caller. The addresses are added to `lo` for the duration of the file (needs root with
 * CAP_NET_ADMIN, as in CI), from documentation and private ranges nothing else uses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addLoopbackAddresses, call, destroyAgents, startInProcess, statuses, type InProcessServer } from './helpers.ts';

const OTHER = '/api/v1/public/other';
const SAME_64_A = '2001:db8:77:1::a';
const SAME_64_B = '2001:db8:77:1:ffff:1234:5678:b';
const OTHER_64 = '2001:db8:77:2::a';
const PRIVATE = ['10.77.77.1', '100.64.77.1', '192.168.77.1', 'fd77::a', 'fd77:1::b'];

const removeAddresses = addLoopbackAddresses([SAME_64_A, SAME_64_B, OTHER_64, ...PRIVATE]);
if (removeAddresses === undefined) {
  console.warn('addresses.test.ts: cannot add addresses to lo (needs root with CAP_NET_ADMIN); skipped');
}

describe.skipIf(removeAddresses === undefined)('caller grouping by real source address (contract §8.3)', () => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await startInProcess({
      perMinute: { cves: 20, standard: 10, other: 5 },
      perSecond: { cves: 1000, standard: 1000, other: 1000 },
      burstPerSecond: 1000,
      windowMs: 2000,
    });
  });
  afterAll(async () => {
    await server?.close();
    destroyAgents();
    removeAddresses?.();
  });

  it('two addresses in one IPv6 /64 are one caller; another /64 is another caller', async () => {
    const { port } = server;
    expect(await statuses(3, { port, from: SAME_64_A, path: OTHER })).toEqual([200, 200, 200]);
    expect(await statuses(3, { port, from: SAME_64_B, path: OTHER })).toEqual([200, 200, 429]);
    expect((await call({ port, from: SAME_64_A, path: OTHER })).status).toBe(429);
    expect((await call({ port, from: OTHER_64, path: OTHER })).status).toBe(200);
  });

  it('every caller without a public address (RFC 1918, RFC 6598, ULA) shares one allowance', async () => {
    const { port } = server;
    for (const from of PRIVATE) expect((await call({ port, from, path: OTHER })).status, from).toBe(200);
    for (const from of PRIVATE) expect((await call({ port, from, path: OTHER })).status, from).toBe(429);
    // Headers do not move a private caller out of the shared allowance.
    const spoofed = await call({ port, from: PRIVATE[0], path: OTHER, headers: { 'X-Forwarded-For': '203.0.113.50' } });
    expect(spoofed.status).toBe(429);
    // Loopback is not "private" here: a loopback caller still has its own allowance.
    expect((await call({ port, from: '127.0.0.61', path: OTHER })).status).toBe(200);
  });
});
