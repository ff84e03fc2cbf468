/**
 * Test plumbing for the fetchers: a local HTTP server (127.0.0.1, random port) that replays
 * recorded responses, an HttpClient that goes straight to it (no proxy, no real sleeping), and
 * a fetch context over a temporary raw folder. No test touches the network.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent } from 'undici';
import { loadFetchConfig, mergeConfig, type FetchConfig } from '../../cli/fetch/config.ts';
import { HttpClient, type UrlRewrite } from '../../cli/fetch/http.ts';
import type { FetchContext } from '../../cli/fetch/sources/types.ts';

// Progress lines would clutter the test output.
process.env.VULNINTEL_QUIET = '1';

export const FIXTURES = fileURLToPath(new URL('../fixtures/fetch/', import.meta.url));

export function fixture(path: string): Promise<Buffer> {
  return readFile(join(FIXTURES, path));
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Send the headers (with the full Content-Length) and this many body bytes, then cut the connection. */
  cutAfter?: number;
  /** With cutAfter: wait this long before cutting (the client reads what it got first). */
  cutDelayMs?: number;
}

export type Route = (req: IncomingMessage, url: URL) => Reply | Promise<Reply>;

export interface Recorded {
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
}

export interface TestServer {
  base: string;
  requests: Recorded[];
  close(): Promise<void>;
}

export async function startServer(route: Route): Promise<TestServer> {
  const requests: Recorded[] = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push({ path: url.pathname, query: url.searchParams, headers: req.headers });
    let reply: Reply;
    try {
      reply = await route(req, url);
    } catch (err) {
      reply = { status: 500, body: String(err) };
    }
    const body = typeof reply.body === 'string' ? Buffer.from(reply.body) : (reply.body ?? Buffer.alloc(0));
    res.writeHead(reply.status ?? 200, { 'content-length': String(body.length), ...reply.headers });
    if (reply.cutAfter !== undefined) {
      res.write(body.subarray(0, reply.cutAfter), () => setTimeout(() => res.destroy(), reply.cutDelayMs ?? 0));
      return;
    }
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A route from `path → reply | replies in order` (the last reply repeats); unknown paths 404. */
export function routes(table: Record<string, Reply | Reply[] | ((url: URL) => Reply | Promise<Reply>)>): Route {
  const seen = new Map<string, number>();
  return (_req, url) => {
    const entry = table[url.pathname];
    if (!entry) return { status: 404, body: 'not found' };
    if (typeof entry === 'function') return entry(url);
    if (!Array.isArray(entry)) return entry;
    const n = seen.get(url.pathname) ?? 0;
    seen.set(url.pathname, n + 1);
    return entry[Math.min(n, entry.length - 1)]!;
  };
}

export interface TestHttp {
  http: HttpClient;
  /** Every wait the client asked for (backoff, Retry-After), in ms. */
  sleeps: number[];
}

/** Straight to 127.0.0.1 (a plain Agent: a proxy in the environment must not interfere). */
export function testHttp(opts: { retries?: number; timeoutMs?: number; rewrites?: UrlRewrite[]; minBodyBytes?: number } = {}): TestHttp {
  const sleeps: number[] = [];
  const http = new HttpClient({
    dispatcher: new Agent({ headersTimeout: opts.timeoutMs ?? 5000, bodyTimeout: opts.timeoutMs ?? 5000 }),
    retries: opts.retries ?? 3,
    backoffMs: 5,
    timeoutMs: opts.timeoutMs ?? 5000,
    rewrites: opts.rewrites ?? [],
    ...(opts.minBodyBytes !== undefined ? { minBodyBytes: opts.minBodyBytes } : {}),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  return { http, sleeps };
}

export async function testConfig(overrides: unknown): Promise<FetchConfig> {
  return loadFetchConfig(undefined, mergeConfig({ sources: { nvd: { rateWindowSeconds: 0.001 } } }, overrides));
}

export async function tempRaw(): Promise<{ raw: string; cleanup(): Promise<void> }> {
  const raw = await mkdtemp(join(tmpdir(), 'vulnintel-fetch-'));
  return { raw, cleanup: () => rm(raw, { recursive: true, force: true }) };
}

export function context(raw: string, source: string, config: FetchConfig, http: HttpClient, extra: Partial<FetchContext> = {}): FetchContext {
  return {
    rawDir: raw,
    dir: join(raw, source),
    config,
    http,
    signal: new AbortController().signal,
    now: () => new Date(),
    sleep: async () => {},
    log: () => {},
    full: false,
    ...extra,
  };
}
