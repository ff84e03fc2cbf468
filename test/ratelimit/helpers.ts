/**
 * Real processes and real sockets for the rate-limit tests: a redis-server on a free port,
 * fixture server processes, in-process servers, loopback addresses, and an HTTP client that
 * picks its source address (the caller identity under test).
 */
import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createRateLimiter, defaultRateLimitConfig, type RateLimitConfig, type RateLimitOverrides, type RateLimiter } from '../../api/ratelimit/index.ts';
import { buildFixtureApp } from './fixture-app.ts';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns true or `timeoutMs` passes; returns the last result. */
export async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs = 10_000, everyMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(everyMs);
  }
}

export interface RedisProcess {
  port: number;
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `redis-server` (no persistence, plus `extraArgs`, e.g. `--requirepass`) and waits until it accepts connections. */
export async function startRedis(port?: number, extraArgs: readonly string[] = []): Promise<RedisProcess> {
  const chosen = port ?? (await freePort());
  const child = spawn('redis-server', ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const ready = await waitFor(() => output.includes('Ready to accept connections') || child.exitCode !== null, 10_000, 20);
  if (!ready || child.exitCode !== null) throw new Error(`redis-server did not start on ${chosen}:\n${output}`);
  return {
    port: chosen,
    url: `redis://127.0.0.1:${chosen}`,
    child,
    stop: () => stopChild(child),
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

export interface FixtureProcess {
  port: number;
  pid: number;
  stderr(): string;
  stop(): Promise<void>;
}

const FIXTURE = fileURLToPath(new URL('./fixture-server.ts', import.meta.url));

/** Spawns one fixture server process (a replica) with the given environment. */
export async function startFixture(env: Record<string, string>): Promise<FixtureProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const started = await waitFor(() => stdout.includes('\n') || child.exitCode !== null, 30_000, 20);
  if (!started || child.exitCode !== null) throw new Error(`fixture server did not start:\n${stderr}`);
  const { port } = JSON.parse(stdout.split('\n')[0]!) as { port: number };
  return { port, pid: child.pid!, stderr: () => stderr, stop: () => stopChild(child) };
}

export interface InProcessServer {
  port: number;
  limiter: RateLimiter;
  close(): Promise<void>;
}

/** Lines logged by an in-process limiter, for assertions on what it says. */
export function captureLogger(): { lines: string[]; logger: NonNullable<RateLimitConfig['logger']> } {
  const lines: string[] = [];
  return {
    lines,
    logger: { info: (_obj, msg) => void lines.push(`info ${msg}`), warn: (_obj, msg) => void lines.push(`warn ${msg}`) },
  };
}

/** The fixture app with a limiter, served in this process on "::" (dual-stack) or `hostname`. */
export async function startInProcess(overrides: RateLimitOverrides, hostname = '::'): Promise<InProcessServer> {
  const limiter = createRateLimiter(defaultRateLimitConfig({ logger: captureLogger().logger, ...overrides }));
  const { server, port } = await listen(buildFixtureApp(limiter).fetch, hostname);
  return {
    port,
    limiter,
    close: async () => {
      await closeServer(server);
      await limiter.close();
    },
  };
}

export async function listen(fetch: Hono['fetch'], hostname: string) {
  let server!: ServerType;
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch, hostname, port: 0 }, (info) => resolve(info.port));
  });
  return { server, port };
}

export function closeServer(server: ServerType): Promise<void> {
  return new Promise((resolve) => {
    (server as { closeAllConnections?: () => void }).closeAllConnections?.();
    server.close(() => resolve());
  });
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json(): Record<string, unknown>;
}

const agents = new Map<string, Agent>();

/** Keep-alive agents, one per source address, so a test's callers reuse connections. */
function agentFor(localAddress: string | undefined): Agent {
  const key = localAddress ?? '';
  let agent = agents.get(key);
  if (agent === undefined) {
    agent = new Agent({ keepAlive: true, maxSockets: 64 });
    agents.set(key, agent);
  }
  return agent;
}

export function destroyAgents(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

export interface Call {
  port: number;
  path: string;
  /** Source address: the caller identity as the server's socket records it. */
  from?: string;
  /** Address to connect to; defaults to ::1 for an IPv6 source, else 127.0.0.1. */
  host?: string;
  method?: string;
  headers?: Record<string, string>;
}

export function call({ port, path, from, host, method = 'GET', headers = {} }: Call): Promise<Reply> {
  const target = host ?? (from !== undefined && from.includes(':') ? '::1' : '127.0.0.1');
  return new Promise((resolve, reject) => {
    const req = request(
      { host: target, port, path, method, headers, localAddress: from, agent: agentFor(from) },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) as Record<string, unknown> }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Sends `n` requests one after the other; returns their statuses in order. */
export async function statuses(n: number, c: Call): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await call(c)).status);
  return out;
}

/**
 * Adds addresses to `lo` (as root, with CAP_NET_ADMIN) so tests can use them as source
 * addresses; returns undefined when the machine does not allow it. The returned function
 * removes exactly what was added.
 */
export function addLoopbackAddresses(addresses: readonly string[]): (() => void) | undefined {
  const added: string[] = [];
  const remove = () => {
    for (const cidr of added.splice(0)) {
      try {
        execFileSync('ip', [cidr.includes(':') ? '-6' : '-4', 'addr', 'del', cidr, 'dev', 'lo'], { stdio: 'ignore' });
      } catch {
        /* already gone */
      }
    }
  };
  try {
    for (const address of addresses) {
      const v6 = address.includes(':');
      const cidr = `${address}/${v6 ? 128 : 32}`;
      // nodad: usable at once, without waiting for IPv6 duplicate address detection.
      execFileSync('ip', [v6 ? '-6' : '-4', 'addr', 'replace', cidr, 'dev', 'lo', ...(v6 ? ['nodad'] : [])], { stdio: 'ignore' });
      added.push(cidr);
    }
    return remove;
  } catch {
    remove();
    return undefined;
  }
}
