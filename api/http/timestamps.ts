/**
 * Times in query parameters and cursors, kept in integer microseconds since the epoch (UTC):
 * DuckDB TIMESTAMPs have microsecond precision, and a keyset cursor that rounded to
 * milliseconds could skip or repeat rows published within the same millisecond.
 */

import { daysInMonth } from '../../lib/calendar.ts';

const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?:([Zz])|([+\- ])(\d{2}):?(\d{2}))?)?$/;

/**
 * Parses `YYYY-MM-DD` (midnight UTC) or an RFC 3339 date-time (`2024-04-12T08:15:06.23Z`,
 * `…+02:00`). Seconds and the offset may be left out (UTC is assumed), and a space stands for
 * `+` before an offset, because an unencoded `+` in a query string arrives as a space. Digits
 * past microseconds are dropped (RFC 3339 sets no limit on them). Throws an Error saying what is wrong.
 */
export function parseTimestampMicros(raw: string): bigint {
  const m = TIMESTAMP.exec(raw.trim());
  if (!m) throw new Error('expected YYYY-MM-DD or an RFC 3339 date-time such as 2024-04-12T08:15:06Z');
  const [, y, mo, d, hh = '0', mi = '0', ss = '0', frac = '', , sign, offH, offM] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(hh);
  const minute = Number(mi);
  // RFC 3339 allows a leap second (60); TIMESTAMP has none, so it is the last microsecond of 59.
  const leap = Number(ss) === 60;
  const second = leap ? 59 : Number(ss);
  if (month < 1 || month > 12) throw new Error(`month ${mo} is not 01-12`);
  if (day < 1 || day > daysInMonth(year, month)) throw new Error(`day ${d} does not exist in ${y}-${mo}`);
  if (hour > 23 || minute > 59 || Number(ss) > 60) throw new Error(`time ${hh}:${mi}:${ss} is out of range`);
  let offsetMinutes = 0;
  if (sign !== undefined) {
    if (Number(offH) > 23 || Number(offM) > 59) throw new Error(`offset ${offH}:${offM} is out of range`);
    offsetMinutes = (Number(offH) * 60 + Number(offM)) * (sign === '-' ? -1 : 1);
  }
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute - offsetMinutes, second, 0);
  const micros = leap ? 999_999 : Number(frac.slice(0, 6).padEnd(6, '0'));
  return BigInt(date.getTime()) * 1000n + BigInt(micros);
}

/** RFC 3339 in UTC: milliseconds like the record JSON, microseconds only when there are some. */
export function formatMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const rest = micros - ms * 1000;
  const iso = new Date(ms).toISOString();
  return rest === 0 ? iso : `${iso.slice(0, -1)}${String(rest).padStart(3, '0')}Z`;
}
