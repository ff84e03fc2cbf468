/**
 * Per-caller rate limiting (contract §8, DESIGN §7) as one Hono middleware.
 *
 *   const limiter = createRateLimiter(defaultRateLimitConfig({ redisUrl, trustProxy }));
 *   app.use('*', cors({ exposeHeaders: [...RATE_LIMIT_EXPOSED_HEADERS] }));
 *   app.use('*', limiter.middleware);
 *   … on shutdown: await limiter.close();
 *
 * Order per request: OPTIONS preflights and paths outside /api/v1/public pass untouched; the
 * per-second limits (this replica, memory) are checked first, so a flood is turned away without
 * touching Redis; then the per-minute count (Redis when configured, memory otherwise).
 */
import type { HttpBindings } from '@hono/node-server';
import type { Context, MiddlewareHandler, Next } from 'hono';
import { pino } from 'pino';
import { CallerResolver } from './caller.ts';
import { validateRateLimitConfig, type RateLimitConfig, type RateLimitLogger } from './config.ts';
import { MemoryMinuteCounter, type MinuteCount, type MinuteCounter, type MinuteStoreHealth } from './minute-count.ts';
import { RedisMinuteCounter } from './minute-redis.ts';
import { refusalResponse, secondsUntil, setAdmittedHeaders, windowLabel } from './responses.ts';
import { SecondLimits } from './second-limits.ts';
import { limitsByIndex, tierOfPath, type TierIndex } from './tiers.ts';

export { defaultRateLimitConfig, rateLimitConfigFromEnv, validateRateLimitConfig } from './config.ts';
export type { RateLimitConfig, RateLimitLogger, RateLimitOverrides, TierLimits } from './config.ts';
export { RATE_LIMIT_EXPOSED_HEADERS } from './responses.ts';

export interface RateLimitHealth {
  /** False while Redis is configured but unreachable (counts are per replica meanwhile). */
  ok: boolean;
  perMinute: MinuteStoreHealth;
  /** Callers with a live per-second window on this replica. */
  perSecondCallers: number;
  /** Refusals by this replica since it started. */
  refused: { minute: number; second: number; burst: number };
}

export interface RateLimiter {
  middleware: MiddlewareHandler;
  health(): RateLimitHealth;
  /**
   * Resolves true once per-minute counts are shared through Redis, false after `timeoutMs`
   * (the limiter serves meanwhile with local counts); true at once without Redis.
   */
  ready(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

export function createRateLimiter(config: RateLimitConfig): RateLimiter {
  validateRateLimitConfig(config);
  const logger: RateLimitLogger = config.logger ?? pino({ name: 'vulnintel-ratelimit' }, pino.destination(2));
  const minuteCeilings = limitsByIndex(config.perMinute);
  const highestCeiling = Math.max(...minuteCeilings);
  const minuteWindow = windowLabel(config.windowMs);
  const secondWindow = windowLabel(config.secondWindowMs);
  const callers = new CallerResolver(config.trustProxy);
  const seconds = new SecondLimits(limitsByIndex(config.perSecond), config.burstPerSecond, config.secondWindowMs, config.maxTrackedCallers);
  const minutes: MinuteCounter =
    config.redisUrl === undefined
      ? new MemoryMinuteCounter(config.windowMs, config.maxTrackedCallers)
      : new RedisMinuteCounter({
          url: config.redisUrl,
          windowMs: config.windowMs,
          keyPrefix: config.redisKeyPrefix,
          highestCeiling,
          commandTimeoutMs: config.redisCommandTimeoutMs,
          probeMs: config.redisProbeMs,
          maxCallers: config.maxTrackedCallers,
          logger,
        });
  const refused = { minute: 0, second: 0, burst: 0 };

  const sweeper = setInterval(() => {
    const now = Date.now();
    seconds.sweep(now);
    minutes.sweep(now);
  }, config.sweepIntervalMs);
  sweeper.unref();

  /** After the per-minute count: refuse past the path's ceiling, else admit with per-second headers. */
  function decide(c: Context, next: Next, tier: TierIndex, count: MinuteCount, secondReset: number, remaining: number, now: number): Response | Promise<void> {
    if (count.count > minuteCeilings[tier]) {
      refused.minute++;
      return refusalResponse(c, {
        scope: 'minute',
        limit: minuteCeilings[tier],
        retryAfter: secondsUntil(count.resetAt, now),
        window: minuteWindow,
      });
    }
    setAdmittedHeaders(c, seconds.limitOf(tier), remaining, secondsUntil(secondReset, now), secondWindow);
    return next();
  }

  const middleware: MiddlewareHandler = (c, next) => {
    // Preflights are not counted (DESIGN §6); unlimited paths pass untouched.
    if (c.req.method === 'OPTIONS') return next();
    const tier = tierOfPath(c.req.path);
    if (tier === undefined) return next();

    const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming;
    const caller = callers.resolve(incoming?.socket?.remoteAddress, () => c.req.header('x-forwarded-for'));
    const now = Date.now();

    const second = seconds.hit(caller, tier, now);
    const verdict = seconds.verdict(second, tier);
    if (verdict !== 'admit') {
      refused[verdict === 'sustained' ? 'second' : 'burst']++;
      return Promise.resolve(
        refusalResponse(c, {
          scope: verdict === 'sustained' ? 'second' : 'burst',
          limit: verdict === 'sustained' ? seconds.limitOf(tier) : seconds.burst,
          retryAfter: secondsUntil(second.resetAt, now),
          window: secondWindow,
        }),
      );
    }
    // Read before any await: the window record is mutated in place by later requests.
    const secondReset = second.resetAt;
    const remaining = seconds.remaining(second, tier);

    const count = minutes.hit(caller, now);
    if (count instanceof Promise) return count.then<Response | void>((shared) => decide(c, next, tier, shared, secondReset, remaining, now));
    return Promise.resolve(decide(c, next, tier, count, secondReset, remaining, now));
  };

  return {
    middleware,
    health(): RateLimitHealth {
      const perMinute = minutes.health();
      return {
        ok: perMinute.store !== 'memory-fallback',
        perMinute,
        perSecondCallers: seconds.trackedCallers,
        refused: { ...refused },
      };
    },
    async ready(timeoutMs = 5000): Promise<boolean> {
      const deadline = Date.now() + timeoutMs;
      while (minutes.health().store === 'memory-fallback') {
        if (Date.now() >= deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return true;
    },
    async close(): Promise<void> {
      clearInterval(sweeper);
      await minutes.close();
    },
  };
}
