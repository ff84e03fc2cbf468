/**
 * A fast path in front of `toUtcTimestamp` for the timestamp shapes that make up nearly every
 * value of the NVD and CVE 5 feeds: `2023-10-10T14:15:10.977` (NVD, zone-less UTC),
 * `2024-04-05T17:40:30.117Z` (CVE Services), `2024-04-17T04:00:13.543064Z` (CISA SSVC) and
 * `2000-02-04T05:00:00` (legacy CVE 5). Measured on the 2-core machine, the general normaliser
 * costs several times more than this, and the CVE feeds call it ~6 times per record over
 * 680,000 records. Anything else (offsets, spaces, bare dates) goes to the shared normaliser.
 * The output is the same: UTC, `Z`, milliseconds (longer fractions truncated, as there), and
 * so are the refusals: a value this path does not vouch for is left to the normaliser.
 */
import { daysInMonth, YEAR_MIN } from '../../lib/calendar.ts';
import { toUtcTimestamp } from './common.ts';

const UTC_SHAPE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z?$/;

/** The two-digit number at `i` of a string the shape above matched. */
function twoDigits(s: string, i: number): number {
  return (s.charCodeAt(i) - 48) * 10 + s.charCodeAt(i + 1) - 48;
}

/**
 * Whether the fields of a matched value exist: read by position and checked by arithmetic
 * (no Date.parse, which also rolls day 30 of February over into March). Four digits keep the
 * year at most 9999; with no zone it is the UTC year.
 */
function fieldsExist(s: string): boolean {
  const year = twoDigits(s, 0) * 100 + twoDigits(s, 2);
  const month = twoDigits(s, 5);
  const day = twoDigits(s, 8);
  return (
    year >= YEAR_MIN && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month) &&
    twoDigits(s, 11) <= 23 && twoDigits(s, 14) <= 59 && twoDigits(s, 17) <= 59
  );
}

export function feedTimestamp(value: unknown): string | null {
  if (typeof value === 'string') {
    const m = UTC_SHAPE.exec(value);
    if (m && fieldsExist(value)) {
      const fraction = m[2] === undefined ? '000' : m[2].length >= 3 ? m[2].slice(0, 3) : m[2].padEnd(3, '0');
      return `${m[1]}.${fraction}Z`;
    }
  }
  return toUtcTimestamp(value);
}
