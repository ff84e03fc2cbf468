/**
 * The calendar rules the build and the API share: which days exist, and which years a
 * timestamp may have. The API reads times itself (api/http/timestamps.ts) and the build reads
 * every feed's dates (cli/parse/common.ts); one definition keeps a date the build accepts
 * one the API can serve.
 */

/**
 * Years the API serves: its per-year export takes `year` from 1000 to 9999, and every date the
 * build stores is written as four digits. A record dated outside them would be published and
 * never listed under any year.
 */
export const YEAR_MIN = 1000;
export const YEAR_MAX = 9999;

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Days of `month` (1–12) in `year`, Gregorian. No allocation: the NVD fast path calls it per timestamp. */
export function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : DAYS[month - 1]!;
}
