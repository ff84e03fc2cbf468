/**
 * The subscription store (a real PostgreSQL, reached through a TCP relay the test can cut) goes
 * away under a running server: its pages say so with an HTML 503, its JSON endpoints with a 503
 * the document declares, and nothing of the read API is touched. Back, everything answers.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../api/server.ts';
import { checkAnswer, documentValidator } from '../api/server-harness.ts';
import { startPostgres, type PostgresServer } from '../helpers/postgres.ts';
import { startWebhookReceiver, type WebhookReceiver } from './sinks.ts';

/** A TCP relay to `port` that can be cut (every connection dropped, new ones refused) and restored. */
async function startRelay(port: number): Promise<{ port: number; cut(): Promise<void>; restore(): Promise<void>; close(): Promise<void> }> {
  let server: Server | null = null;
  const sockets = new Set<Socket>();
  let listenPort = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(port, '127.0.0.1');
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => s.destroy());
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(listenPort, '127.0.0.1', () => {
        listenPort = (server!.address() as { port: number }).port;
        resolve();
      });
    });
  const cut = async () => {
    const closing = new Promise<void>((resolve) => server!.close(() => resolve()));
    for (const s of sockets) s.destroy();
    await closing;
  };
  await listen();
  return { port: listenPort, cut, restore: listen, close: cut };
}

let postgres: PostgresServer;
let relay: Awaited<ReturnType<typeof startRelay>>;
let hooks: WebhookReceiver;
let server: RunningServer;
let dataDir: string;

beforeAll(async () => {
  postgres = await startPostgres();
  const url = new URL(await postgres.createDatabase('pulse_down'));
  relay = await startRelay(postgres.port);
  url.port = String(relay.port);
  hooks = await startWebhookReceiver();
  dataDir = await mkdtemp(join(tmpdir(), 'vulnintel-store-down-'));
  server = await startServer({ dataDir, host: '127.0.0.1', port: 0, rateLimit: false, logger: pino({ level: 'silent' }), pulse: { pulseDb: url.toString(), pulseAllowPrivateWebhooks: true } });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await relay?.close();
  await hooks?.close();
  await postgres?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the subscription store goes away', () => {
  it('pages answer an HTML 503 saying so, the JSON API a declared 503; back, it all answers', async () => {
    const created = (await (
      await fetch(`${server.url}/pulse/api/subscriptions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ channel: 'webhook', url: hooks.url('/h') }) })
    ).json()) as { manage_url: string };
    const token = created.manage_url.split('/').at(-1)!;
    expect((await fetch(`${server.url}/pulse/api/subscriptions/${token}`)).status).toBe(200);

    await relay.cut();
    const page = await fetch(`${server.url}/pulse/s/${token}`);
    expect(page.status).toBe(503);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toMatch(/cannot be reached/);
    const check = await documentValidator(server.url)();
    for (const [method, path] of [
      ['GET', `/pulse/api/subscriptions/${token}`],
      ['GET', `/pulse/api/subscriptions/${token}/deliveries`],
      ['POST', `/pulse/api/subscriptions/${token}/pause`],
    ] as const) {
      const res = await fetch(`${server.url}${path}`, { method });
      // Checked against the served document as a validating client would (the 503 is declared).
      await checkAnswer(check, method, `${server.url}${path}`, res.clone());
      expect(res.status, path).toBe(503);
      expect(((await res.json()) as { code: string }).code).toBe('SERVICE_UNAVAILABLE');
    }

    await relay.restore();
    // The pool reconnects on its next query.
    let back = 0;
    for (let i = 0; i < 20 && back !== 200; i++) {
      back = (await fetch(`${server.url}/pulse/api/subscriptions/${token}`)).status;
      if (back !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(back).toBe(200);
    expect((await fetch(`${server.url}/pulse/s/${token}`)).status).toBe(200);
  });
});
