/**
 * The per-minute count shared by every replica through Redis (`--redis URL`).
 *
 * Each request is one round trip: rate-limiter-flexible's `consume` runs one Lua script that
 * creates the key with the window's expiry on the caller's first request (fixed window) and
 * increments it atomically, returning the count and the time left. A caller past the highest
 * ceiling is then refused from memory until its window ends, without asking Redis again.
 *
 * If Redis goes away (connection lost, or an answer slower than `redisCommandTimeoutMs`), the
 * replica keeps serving and counts per-minute locally, logs the outage once, reports it in
 * health, and goes back to Redis as soon as the connection is ready again (or, for a Redis that
 * is connected but hung or refusing writes, as soon as a periodic probe of the count answers).
 */
import { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimitLogger } from './config.ts';
import { MemoryMinuteCounter, type MinuteCount, type MinuteCounter, type MinuteStoreHealth } from './minute-count.ts';

/** The recovery probe's key: not a caller key (those are "4:…", "6:…", "private", "unknown"). */
const PROBE_KEY = 'probe';

export interface RedisMinuteOptions {
  url: string;
  windowMs: number;
  keyPrefix: string;
  /** The highest per-minute ceiling: past it every path refuses, so Redis need not be asked. */
  highestCeiling: number;
  commandTimeoutMs: number;
  probeMs: number;
  maxCallers: number;
  logger: RateLimitLogger;
}

export class RedisMinuteCounter implements MinuteCounter {
  readonly #client: Redis;
  readonly #limiter: RateLimiterRedis;
  readonly #local: MemoryMinuteCounter;
  readonly #options: RedisMinuteOptions;
  readonly #safeUrl: string;
  /** True while counts go to Redis; false before the first connection and during outages. */
  #shared = false;
  /** True once an outage has been logged, so a flapping Redis logs one line per outage. */
  #outageLogged = false;
  #everConnected = false;
  #degradedSince: number | null = null;
  #lastError: string | null = null;
  /** True once an error was recorded since the connection was last ready (see the 'close' handler). */
  #errorSinceReady = false;
  #outages = 0;
  #probe: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: RedisMinuteOptions) {
    this.#options = options;
    this.#safeUrl = redactUrl(options.url);
    this.#local = new MemoryMinuteCounter(options.windowMs, options.maxCallers);
    this.#client = new Redis(options.url, {
      // Fail at once while disconnected instead of queueing requests behind a dead socket:
      // the local count answers them meanwhile.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // The outage deadline is withDeadline's (below); this only clears out commands a hung
      // Redis never answers.
      commandTimeout: Math.max(1000, 4 * options.commandTimeoutMs),
      connectTimeout: Math.max(1000, options.commandTimeoutMs),
      // Keep reconnecting for ever, at most a second apart, so recovery is quick.
      retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    });
    this.#limiter = new RateLimiterRedis({
      storeClient: this.#client,
      keyPrefix: options.keyPrefix,
      points: options.highestCeiling,
      duration: options.windowMs / 1000,
      rejectIfRedisNotReady: true,
      // Once past the highest ceiling, refuse from memory until the window ends (no round trip).
      inMemoryBlockOnConsumed: options.highestCeiling + 1,
    });
    this.#client.on('ready', () => {
      this.#errorSinceReady = false;
      this.#recover();
    });
    // ioredis emits 'error' (WRONGPASS, NOAUTH, ECONNREFUSED, ENOTFOUND…) and then 'close' for
    // every failed attempt: the close is recorded only when no error said why, or health showed
    // "connection closed" for ever and the cause (a wrong password) was in one log line only.
    this.#client.on('close', () => this.#degrade('connection closed', !this.#errorSinceReady));
    this.#client.on('error', (err: Error) => {
      this.#errorSinceReady = true;
      this.#degrade(err.message);
    });
  }

  hit(caller: string, now: number): MinuteCount | Promise<MinuteCount> {
    if (!this.#shared) return this.#local.hit(caller, now);
    return withDeadline(this.#limiter.consume(caller), this.#options.commandTimeoutMs).then(
      (res) => ({ count: res.consumedPoints, resetAt: now + res.msBeforeNext }),
      (err: unknown) => this.#onRefusedOrFailed(err, caller, now),
    );
  }

  #onRefusedOrFailed(err: unknown, caller: string, now: number): MinuteCount {
    if (err instanceof RateLimiterRes) {
      // Past the highest ceiling. A refusal from the in-memory block carries no count, so
      // report one past the ceiling: every tier refuses either way.
      return { count: Math.max(err.consumedPoints, this.#options.highestCeiling + 1), resetAt: now + err.msBeforeNext };
    }
    this.#degrade(err instanceof Error ? err.message : String(err));
    return this.#local.hit(caller, now);
  }

  #degrade(reason: string, record = true): void {
    if (this.#closed) return;
    if (record) this.#lastError = reason;
    if (this.#shared) {
      this.#shared = false;
      this.#degradedSince = Date.now();
      this.#outages++;
      this.#startProbe();
    }
    if (!this.#outageLogged) {
      this.#outageLogged = true;
      this.#degradedSince ??= Date.now();
      this.#options.logger.warn(
        { redis: this.#safeUrl, reason },
        this.#everConnected
          ? 'rate limit: Redis unreachable; counting per-minute locally on this replica until it returns'
          : 'rate limit: Redis not reachable yet; counting per-minute locally on this replica meanwhile',
      );
    }
  }

  #recover(): void {
    if (this.#closed || this.#shared) return;
    const wasDegraded = this.#outageLogged;
    this.#shared = true;
    this.#everConnected = true;
    this.#outageLogged = false;
    this.#degradedSince = null;
    this.#stopProbe();
    // The local counts were this replica's alone; Redis holds the shared ones again.
    this.#local.clear();
    this.#options.logger.info(
      { redis: this.#safeUrl },
      wasDegraded ? 'rate limit: Redis reachable again; per-minute counts shared' : 'rate limit: per-minute counts shared through Redis',
    );
  }

  /**
   * A connection that dropped announces its return with 'ready'; a Redis that is connected but
   * stopped answering does not, so while degraded a probe checks on it. The probe is the
   * count's own round trip (the script, a write), adding zero to a key no caller has: a PING
   * answered where the count's script did not (writes paused by `CLIENT PAUSE … WRITE` during a
   * failover, a read-only replica, maxmemory reached), so the replica went back to Redis every
   * probe, failed the next request, and dropped its local counts each time: the per-minute
   * ceiling was never reached, and every probe logged an outage and a recovery.
   */
  #startProbe(): void {
    if (this.#probe !== undefined) return;
    this.#probe = setInterval(() => {
      if (this.#client.status !== 'ready') return;
      withDeadline(this.#limiter.consume(PROBE_KEY, 0), this.#options.commandTimeoutMs).then(
        () => this.#recover(),
        () => {},
      );
    }, this.#options.probeMs);
    this.#probe.unref();
  }

  #stopProbe(): void {
    if (this.#probe !== undefined) clearInterval(this.#probe);
    this.#probe = undefined;
  }

  sweep(now: number): void {
    this.#local.sweep(now);
  }

  health(): MinuteStoreHealth {
    return {
      store: this.#shared ? 'redis' : 'memory-fallback',
      redis: {
        url: this.#safeUrl,
        connection: this.#client.status,
        degradedSince: this.#degradedSince === null ? null : new Date(this.#degradedSince).toISOString(),
        lastError: this.#lastError,
        outages: this.#outages,
      },
      localCallers: this.#local.health().localCallers,
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#stopProbe();
    this.#client.disconnect();
    await this.#local.close();
  }
}

/**
 * `promise`, or "Command timed out" if it has not settled `ms` after the call. The deadline is
 * judged after the event loop's next poll for I/O (setImmediate runs after it), so an answer
 * that came back in time but waited in the socket while this replica's loop was busy (a burst
 * of requests) is read first. ioredis's own commandTimeout fired in the timers phase, before
 * that poll: a burst split across replicas made each call a healthy Redis "unreachable", count
 * locally, and together admit up to N times the per-minute ceiling.
 */
function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      setImmediate(() => {
        if (settled) return;
        settled = true;
        reject(new Error('Command timed out'));
      });
    }, ms);
    promise.then(
      (value) => {
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        settled = true;
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

/** The URL without its password, for logs and health. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'redis://(unparseable url)';
  }
}
