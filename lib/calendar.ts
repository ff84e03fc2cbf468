/**
 * The calendar rules the build and the API share: which days exist, and which years a
 * timestamp may have. The API reads times itself (api/http/timestamps.ts) and the build reads
 * every feed's dates (cli/parse/common.ts); one definition keeps a date the build accepts
 * one the API can serve. And how a time is written for people (pages, mails).
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

/** A time as people read it in pages and mails: `2024-04-12T08:15:06.230Z` → `2024-04-12 08:15 UTC`. */
export function minute(iso: string | null | undefined): string {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : '';
}
