/**
 * `Retry-After` (RFC 9110 §10.2.3) as milliseconds after `nowMs`: delay-seconds, or an HTTP date
 * (a date already past is 0). Null when absent or neither: a negative or fractional number, or
 * an ISO date, is no `Retry-After` (Date.parse reads `1.5` and `-5` as dates). Read by the
 * fetchers' HTTP client and by webhook delivery alike.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | null {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return null;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return /[A-Za-z]/.test(text) && Number.isFinite(date) ? Math.max(0, date - nowMs) : null;
}
