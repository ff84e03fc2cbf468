/**
 * The HTTP server: the app on @hono/node-server, the snapshot store behind it, the rate
 * limiter when configured (without one, the record by id is answered before the app: see
 * api/http/record-front-door.ts). `startServer` opens the published snapshot (if any) before
 * listening, so a server that listens serves; `close` stops accepting, lets requests in flight
 * finish (exports included, up to a grace period), then closes the limiter and the snapshot.
 * Requests Node's HTTP parser refuses get the API's JSON error too (api/http/client-errors.ts).
 */
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { getRequestListener, type ServerType } from '@hono/node-server';
import { pino, type Logger } from 'pino';
import { servedChanges } from '../lib/pulse/changes-source.ts';
import { PulseService, type PulseLimits } from '../lib/pulse/service.ts';
import { openPulse, type PulseCliOptions, type PulseSetup } from '../lib/pulse/setup.ts';
import { createApp, DEFAULT_EXPORT_CAP, DEFAULT_QUERY_BUDGET_MS } from './app.ts';
import { CallerResolver } from './ratelimit/caller.ts';
import { answerClientErrors, applyHostRules, unreadableRequestResponse } from './http/client-errors.ts';
import { recordFrontDoor, type RequestHead } from './http/record-front-door.ts';
import type { ApiApp } from './http/context.ts';
import { StreamRegistry, type StreamLimits } from './http/streams.ts';
import { createRateLimiter, type RateLimitConfig, type RateLimiter } from './ratelimit/index.ts';
import type { ServingOptions } from './snapshot/serving.ts';
import { SnapshotStore } from './snapshot/store.ts';

export interface ServerOptions {
  dataDir: string;
  host?: string;
  /** 0 picks a free port (tests). */
  port?: number;
  /** Default: VULNINTEL_QUERY_BUDGET_MS, else 250 ms. */
  queryBudgetMs?: number;
  /** Default: VULNINTEL_EXPORT_CAP, else 50,000. */
  exportCap?: number;
  /** Rate limiting: a config, or false for none (benchmarks, tests of other things). */
  rateLimit?: RateLimitConfig | false;
  /** Fallback poll of data/CURRENT (default 2 s). */
  watchIntervalMs?: number;
  /** How long a request may take to arrive whole (default REQUEST_TIMEOUT_MS); then 408. */
  requestTimeoutMs?: number;
  /** How long close() waits for requests in flight before cutting connections (default 10 s). */
  closeGraceMs?: number;
  snapshot?: ServingOptions;
  logger?: Logger;
  /** `/pulse/stream`: heartbeat period and open streams per caller. */
  pulseStream?: StreamLimits;
  /** The /pulse subscription endpoints and pages, over this store, SMTP server and public URL. */
  pulse?: (PulseCliOptions & { limits?: Partial<PulseLimits>; trustProxy?: string[] }) | undefined;
}

export interface RunningServer {
  url: string;
  host: string;
  port: number;
  app: ApiApp;
  store: SnapshotStore;
  /** The /pulse store, links and mailer, when serving /pulse. */
  pulse: PulseSetup | undefined;
  close(): Promise<void>;
}

/** How long the head of a request may take to arrive, and the whole request. */
export const REQUEST_HEAD_TIMEOUT_MS = 20_000;
export const REQUEST_TIMEOUT_MS = 30_000;

/** A non-negative number from the environment, or the fallback. */
export function envNumber(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return value;
}

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const logger = opts.logger ?? pino({ name: 'vulnintel-api', level: process.env.LOG_LEVEL ?? 'info' }, pino.destination(2));
  const store = new SnapshotStore({
    dataDir: opts.dataDir,
    logger,
    ...(opts.watchIntervalMs !== undefined ? { watchIntervalMs: opts.watchIntervalMs } : {}),
    ...(opts.snapshot ? { open: opts.snapshot } : {}),
  });
  await store.start();
  let limiter: RateLimiter | undefined;
  if (opts.rateLimit) limiter = createRateLimiter({ ...opts.rateLimit, logger: opts.rateLimit.logger ?? logger });
  let pulse: PulseSetup | undefined;
  if (opts.pulse) {
    try {
      pulse = await openPulse(opts.pulse, opts.dataDir, opts.port ?? 8080);
    } catch (err) {
      await limiter?.close();
      await store.close();
      throw err;
    }
  }

  const streams = new StreamRegistry(opts.pulseStream);
  // One notion of one caller for the rate limiter, the streams' bound and /pulse's creation
  // limits: behind a trusted proxy, the client it names, not the proxy.
  const callers = new CallerResolver(opts.pulse?.trustProxy ?? (opts.rateLimit ? opts.rateLimit.trustProxy : []));
  const app = createApp({
    store,
    dataDir: opts.dataDir,
    logger,
    queryBudgetMs: opts.queryBudgetMs ?? envNumber('VULNINTEL_QUERY_BUDGET_MS', DEFAULT_QUERY_BUDGET_MS),
    exportCap: Math.max(1, Math.trunc(opts.exportCap ?? envNumber('VULNINTEL_EXPORT_CAP', DEFAULT_EXPORT_CAP))),
    rateLimiter: limiter,
    streams,
    callers,
    publicUrl: opts.pulse?.publicUrl,
    pulse: pulse && {
      service: new PulseService({
        store: pulse.store,
        links: pulse.links,
        mailer: pulse.mailer,
        allowPrivateWebhooks: pulse.allowPrivateWebhooks,
        changes: servedChanges(opts.dataDir, () => store.current?.buildId ?? null),
        ...(opts.pulse?.limits ? { limits: opts.pulse.limits } : {}),
        onMailError: (err) => logger.warn({ err }, 'confirmation e-mail not sent'),
      }),
      callers,
    },
  });

  // Without a rate limiter, a record by id is answered before Hono (api/http/record-front-door.ts).
  const recordDoor = limiter ? undefined : recordFrontDoor(store);
  const answerRequest = recordDoor ? (request: Request, env: { incoming: RequestHead }) => recordDoor(env.incoming) ?? app.fetch(request, env) : app.fetch;
  const host = opts.host ?? '0.0.0.0';
  let server: ServerType;
  const address = await new Promise<AddressInfo>((resolve, reject) => {
    // Node's own check of Host is off (its 400 has no body, no CORS): a request without one
    // reaches the adapter, which cannot make a Request of it and hands it to errorHandler.
    const snapshotId = () => store.current?.buildId ?? 'none';
    const listener = applyHostRules(
      getRequestListener(answerRequest, { errorHandler: (err) => unreadableRequestResponse(err, snapshotId()) }),
      snapshotId,
      () => `${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo | null)?.port ?? opts.port ?? 8080}`,
    );
    // A request must arrive whole within these (Node's defaults: 60 s for the head, 300 s for the
    // whole request): a client sending its few bytes slowly held a connection for 5 minutes.
    // Every request here is a GET or a body of at most 16 KiB; answers (exports, streams) are not bounded by them.
    const requestTimeout = opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
    server = createServer(
      {
        requireHostHeader: false,
        headersTimeout: Math.min(REQUEST_HEAD_TIMEOUT_MS, requestTimeout),
        requestTimeout,
        // How often the two are checked (Node's default, 30 s, let a request run on up to twice its time).
        connectionsCheckingInterval: Math.min(5_000, requestTimeout / 2),
      },
      listener,
    );
    // An expectation other than 100-continue (which Node meets itself) is ignored, as RFC 9110
    // §10.1.1 lets a server do, and the request answered like any other: Node's default was a
    // bare 417, with no JSON body, no CORS and no X-Snapshot.
    server.on('checkExpectation', listener);
    server.listen(opts.port ?? 8080, host, () => resolve(server.address() as AddressInfo));
    server.once('error', reject);
  });
  answerClientErrors(server! as import('node:http').Server, () => store.current?.buildId ?? 'none');
  const shownHost = address.address.includes(':') ? `[${address.address}]` : address.address;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${address.port}`,
    host: address.address,
    port: address.port,
    app,
    store,
    pulse,
    close() {
      closing ??= (async () => {
        // Long-lived change streams would otherwise hold the close for its whole grace period.
        streams.closeAll();
        await new Promise<void>((resolve) => {
          const grace = setTimeout(() => {
            // Requests still running past the grace period (a slow export reader) are cut.
            (server as import('node:http').Server).closeAllConnections?.();
          }, opts.closeGraceMs ?? 10_000);
          grace.unref();
          server.close(() => {
            clearTimeout(grace);
            resolve();
          });
        });
        await limiter?.close();
        await pulse?.close();
        await store.close();
      })();
      return closing;
    },
  };
}
