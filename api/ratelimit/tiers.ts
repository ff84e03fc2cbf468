/**
 * Which limit tier a path falls in (contract §8.1 table, plus the web area's own tier). Paths
 * outside `/api/v1/public` and `/pulse` (openapi, docs, health) and the web area's static
 * assets (`/pulse/assets/…`, cached for a year by URL) are not limited at all. The table is
 * followed to the letter: every path under `/cves` (the batch included) has the `/cves` tier,
 * and a path it does not name (`/changes`, `/packages`) the last one, as PULSE §3 says of the
 * change feed ("the same rate-limit rules as the rest of /api/v1/public"). The change feed's
 * other doors under /pulse (the Atom feed, the stream) share `/changes`'s tier; every other
 * /pulse path (the pages, the subscription endpoints) is in the `pulse` tier.
 */
import type { TierLimits } from './config.ts';

export type Tier = keyof TierLimits;

/** Tier indices, so per-caller counters can be small arrays instead of keyed objects. */
export const TIERS: readonly Tier[] = ['cves', 'standard', 'other', 'pulse'];
export const CVES = 0;
export const STANDARD = 1;
export const OTHER = 2;
export const PULSE = 3;
export type TierIndex = typeof CVES | typeof STANDARD | typeof OTHER | typeof PULSE;

const PUBLIC_PREFIX = '/api/v1/public';
const PULSE_PREFIX = '/pulse';
const PULSE_ASSETS = '/pulse/assets';

/** The contract's 6,000-per-minute paths, each with every path under it. */
const STANDARD_PATHS = ['/vendor-advisories', '/cwes', '/ecosystems', '/vendors', '/shadow-ai-radar', '/kev/recent'];

/** The change feed outside the API: the Atom feed and the stream, in `/changes`'s tier. */
const PULSE_FEEDS = '/pulse/feeds';
const PULSE_STREAM = '/pulse/stream';

/** True when `path` is `prefix` itself or a path under it, starting at `offset` (no allocation). */
function isAtOrUnder(path: string, offset: number, prefix: string): boolean {
  if (!path.startsWith(prefix, offset)) return false;
  const end = offset + prefix.length;
  return path.length === end || path.charCodeAt(end) === 47; /* '/' */
}

/** The tier of a request path, or undefined when the path is not rate limited. */
export function tierOfPath(path: string): TierIndex | undefined {
  if (!isAtOrUnder(path, 0, PUBLIC_PREFIX)) {
    if (isAtOrUnder(path, 0, PULSE_FEEDS) || isAtOrUnder(path, 0, PULSE_STREAM)) return OTHER;
    if (isAtOrUnder(path, 0, PULSE_PREFIX) && !isAtOrUnder(path, 0, PULSE_ASSETS)) return PULSE;
    return undefined;
  }
  const offset = PUBLIC_PREFIX.length;
  if (isAtOrUnder(path, offset, '/cves')) return CVES;
  for (const prefix of STANDARD_PATHS) if (isAtOrUnder(path, offset, prefix)) return STANDARD;
  return OTHER;
}

/** Limits of a config as an array indexed by TierIndex. */
export function limitsByIndex(limits: TierLimits): readonly [number, number, number, number] {
  return [limits.cves, limits.standard, limits.other, limits.pulse];
}
