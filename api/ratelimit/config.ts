/**
 * Rate-limit settings (contract §8, DESIGN §7). The defaults are the contract's numbers; every
 * number can be overridden, by tests (2-second windows, ceilings of 20) and by operators
 * (environment variables, see `rateLimitConfigFromEnv`).
 */
import { parseTrustedProxies } from './caller.ts';
import { parseOptionUrl } from '../../lib/option-url.ts';
import { redactUrl } from './minute-redis.ts';

/** One number per path tier (see tiers.ts). */
export interface TierLimits {
  /** `/api/v1/public/cves` and every path under it. */
  cves: number;
  /** vendor-advisories, cwes, ecosystems, vendors, shadow-ai-radar, kev/recent. */
  standard: number;
  /** Any other `/api/v1/public` path. */
  other: number;
  /** The web area's pages (`/pulse` and paths under it, but its static assets). */
  pulse: number;
}

/** Tier names, in TierIndex order (tiers.ts). */
export const TIER_NAMES = ['cves', 'standard', 'other', 'pulse'] as const;

/** Overrides of the defaults: any number of tiers may be given. */
export type RateLimitOverrides = Partial<Omit<RateLimitConfig, 'perMinute' | 'perSecond'>> & {
  perMinute?: Partial<TierLimits>;
  perSecond?: Partial<TierLimits>;
};

/** Structured logger; pino's `info(obj, msg)` / `warn(obj, msg)` fit it as they are. */
export interface RateLimitLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface RateLimitConfig {
  /** `--redis URL`: share the per-minute count across replicas. Absent: count in memory. */
  redisUrl?: string | undefined;
  /** `--trust-proxy CIDR`: proxies whose appended `X-Forwarded-For` hop is believed. */
  trustProxy: string[];
  /** Per-minute ceilings (contract §8.1), one shared counter per caller. */
  perMinute: TierLimits;
  /** Sustained per-second limits (contract §8.1), per caller and tier, per replica. */
  perSecond: TierLimits;
  /** Burst cap (contract §8.2): requests per caller per second, all tiers, per replica. */
  burstPerSecond: number;
  /** Length of the per-minute window, fixed from the caller's first request. */
  windowMs: number;
  /** Length of the per-second window, fixed from the caller's first request in it. */
  secondWindowMs: number;
  /** Prefix of the Redis keys (`PREFIX:caller`), so several deployments can share one Redis. */
  redisKeyPrefix: string;
  /** A Redis answer slower than this counts as an outage for that request (local count). */
  redisCommandTimeoutMs: number;
  /** While degraded, how often a hung-but-connected Redis is probed for recovery. */
  redisProbeMs: number;
  /** How often expired per-caller windows are dropped from memory. */
  sweepIntervalMs: number;
  /** Memory bound per table; past it the oldest caller is forgotten (fails open, never closed). */
  maxTrackedCallers: number;
  /** Defaults to a pino logger on stderr. */
  logger?: RateLimitLogger | undefined;
}

export function defaultRateLimitConfig(overrides: RateLimitOverrides = {}): RateLimitConfig {
  return {
    redisUrl: undefined,
    trustProxy: [],
    burstPerSecond: 500,
    windowMs: 60_000,
    secondWindowMs: 1_000,
    redisKeyPrefix: 'vulnintel:rl:minute',
    redisCommandTimeoutMs: 250,
    redisProbeMs: 1_000,
    sweepIntervalMs: 10_000,
    maxTrackedCallers: 500_000,
    ...overrides,
    perMinute: { cves: 12_000, standard: 6_000, other: 600, pulse: 1_200, ...overrides.perMinute },
    perSecond: { cves: 200, standard: 100, other: 10, pulse: 20, ...overrides.perSecond },
  };
}

/** Throws on a setting that would make the limiter silently wrong. */
export function validateRateLimitConfig(config: RateLimitConfig): void {
  const positive = (name: string, value: number) => {
    if (!Number.isInteger(value) || value <= 0) throw new Error(`rate limit: ${name} must be a positive integer, got ${value}`);
  };
  for (const tier of TIER_NAMES) {
    positive(`perMinute.${tier}`, config.perMinute[tier]);
    positive(`perSecond.${tier}`, config.perSecond[tier]);
  }
  positive('burstPerSecond', config.burstPerSecond);
  positive('windowMs', config.windowMs);
  positive('secondWindowMs', config.secondWindowMs);
  positive('redisCommandTimeoutMs', config.redisCommandTimeoutMs);
  positive('redisProbeMs', config.redisProbeMs);
  positive('sweepIntervalMs', config.sweepIntervalMs);
  positive('maxTrackedCallers', config.maxTrackedCallers);
  // Redis keys expire in whole seconds (rate-limiter-flexible sets EX), and the headers say "60s".
  if (config.windowMs % 1000 !== 0) throw new Error(`rate limit: windowMs must be whole seconds, got ${config.windowMs}`);
  if (config.secondWindowMs % 1000 !== 0) {
    throw new Error(`rate limit: secondWindowMs must be whole seconds, got ${config.secondWindowMs}`);
  }
  parseTrustedProxies(config.trustProxy); // throws on a malformed CIDR
  if (config.redisUrl !== undefined) checkRedisUrl(config.redisUrl);
}

/**
 * `--redis` is a redis:// or rediss:// URL. Anything else (a bare word, an http:// URL) was
 * taken, and the replica counted alone for ever, reconnecting to nothing, while its operator
 * believed the count shared.
 */
function checkRedisUrl(text: string): void {
  const url = parseOptionUrl('--redis', text, ['redis', 'rediss'], 'redis://127.0.0.1:6379, rediss:// for TLS');
  if (url.hostname === '') throw new Error(`--redis: no host in "${text}"`);
  // The path (or a `db` parameter) is the database number. ioredis takes anything there and
  // selects parseInt of it: `redis://host:6379/abc` sent SELECT NaN before every count, whose
  // rejection nobody awaited, and the replica crashed on its first rate-limited request.
  const db = url.pathname.length > 1 ? url.pathname.slice(1) : url.searchParams.get('db');
  if (db !== null && !/^\d{1,9}$/.test(db)) {
    throw new Error(`--redis: the URL's path is the database number (e.g. redis://127.0.0.1:6379/0), got "${db}" in "${redactUrl(text)}"`);
  }
}

/**
 * Operator overrides from the environment, on top of `base` (e.g. the serve command's
 * `--redis` / `--trust-proxy`). Tier lists read `cves=12000,standard=6000,other=600,pulse=1200`; a missing
 * tier keeps its value.
 *
 *   VULNINTEL_RATE_PER_MINUTE   VULNINTEL_RATE_PER_SECOND   VULNINTEL_RATE_BURST
 *   VULNINTEL_RATE_WINDOW_MS    VULNINTEL_RATE_SECOND_WINDOW_MS   VULNINTEL_RATE_REDIS_PREFIX
 *   VULNINTEL_RATE_REDIS_TIMEOUT_MS   VULNINTEL_RATE_REDIS_PROBE_MS
 */
export function rateLimitConfigFromEnv(env: NodeJS.ProcessEnv, base: RateLimitConfig = defaultRateLimitConfig()): RateLimitConfig {
  const config: RateLimitConfig = { ...base, perMinute: { ...base.perMinute }, perSecond: { ...base.perSecond } };
  if (env.VULNINTEL_RATE_PER_MINUTE) Object.assign(config.perMinute, parseTierList('VULNINTEL_RATE_PER_MINUTE', env.VULNINTEL_RATE_PER_MINUTE));
  if (env.VULNINTEL_RATE_PER_SECOND) Object.assign(config.perSecond, parseTierList('VULNINTEL_RATE_PER_SECOND', env.VULNINTEL_RATE_PER_SECOND));
  if (env.VULNINTEL_RATE_BURST) config.burstPerSecond = parseNumber('VULNINTEL_RATE_BURST', env.VULNINTEL_RATE_BURST);
  if (env.VULNINTEL_RATE_WINDOW_MS) config.windowMs = parseNumber('VULNINTEL_RATE_WINDOW_MS', env.VULNINTEL_RATE_WINDOW_MS);
  if (env.VULNINTEL_RATE_SECOND_WINDOW_MS) {
    config.secondWindowMs = parseNumber('VULNINTEL_RATE_SECOND_WINDOW_MS', env.VULNINTEL_RATE_SECOND_WINDOW_MS);
  }
  if (env.VULNINTEL_RATE_REDIS_PREFIX) config.redisKeyPrefix = env.VULNINTEL_RATE_REDIS_PREFIX;
  if (env.VULNINTEL_RATE_REDIS_TIMEOUT_MS) {
    config.redisCommandTimeoutMs = parseNumber('VULNINTEL_RATE_REDIS_TIMEOUT_MS', env.VULNINTEL_RATE_REDIS_TIMEOUT_MS);
  }
  if (env.VULNINTEL_RATE_REDIS_PROBE_MS) config.redisProbeMs = parseNumber('VULNINTEL_RATE_REDIS_PROBE_MS', env.VULNINTEL_RATE_REDIS_PROBE_MS);
  validateRateLimitConfig(config);
  return config;
}

function parseNumber(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name}: expected a positive integer, got "${text}"`);
  return value;
}

function parseTierList(name: string, text: string): Partial<TierLimits> {
  const out: Partial<TierLimits> = {};
  for (const part of text.split(',')) {
    const [tier, value] = part.split('=').map((s) => s.trim());
    const known = TIER_NAMES.find((t) => t === tier);
    if (known === undefined) throw new Error(`${name}: unknown tier "${tier}" (expected ${TIER_NAMES.join(', ')})`);
    out[known] = parseNumber(name, value ?? '');
  }
  return out;
}
