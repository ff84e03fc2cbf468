/**
 * The exact spellings sources use for times and JSON: NVD's zone-less milliseconds, legacy
 * CVE 5 dates without a zone, Red Hat's `+00:00`, CISA's microseconds, PHP's escaped slashes,
 * GitHub's pretty-printed empty arrays.
 */

const DAY_MS = 86_400_000;
const PAD2 = Array.from({ length: 100 }, (_, k) => String(k).padStart(2, '0'));
const PAD3 = Array.from({ length: 1000 }, (_, k) => String(k).padStart(3, '0'));
const dayCache = new Map<number, string>();

/**
 * `YYYY-MM-DDTHH:MM:SS.mmm` in UTC. Formatting is on the hot path (several timestamps per
 * record, hundreds of thousands of records): days are cached, clock fields come from tables.
 */
function isoBase(ms: number): string {
  const t = Math.floor(ms);
  const day = Math.floor(t / DAY_MS);
  let date = dayCache.get(day);
  if (date === undefined) {
    date = new Date(day * DAY_MS).toISOString().slice(0, 10);
    if (dayCache.size > 50_000) dayCache.clear();
    dayCache.set(day, date);
  }
  let rest = t - day * DAY_MS;
  const milli = rest % 1000;
  rest = (rest - milli) / 1000;
  const sec = rest % 60;
  rest = (rest - sec) / 60;
  const min = rest % 60;
  const hour = (rest - min) / 60;
  return `${date}T${PAD2[hour]}:${PAD2[min]}:${PAD2[sec]}.${PAD3[milli]}`;
}

/** NVD: `2023-10-10T14:15:10.977` (UTC, no zone designator). */
export function nvdTime(ms: number): string {
  return isoBase(ms);
}

/** `2024-01-31T12:00:00.000Z`. */
export function isoZ(ms: number): string {
  return `${isoBase(ms)}Z`;
}

/** `2024-01-31T12:00:00Z` (OSV, GitHub). */
export function isoSeconds(ms: number): string {
  return `${isoBase(ms).slice(0, 19)}Z`;
}

/** `2024-01-31`. */
export function isoDate(ms: number): string {
  return isoBase(ms).slice(0, 10);
}

/** Legacy CVE 5 records: `2000-02-04T05:00:00`, no zone. */
export function legacyTime(ms: number): string {
  return isoBase(ms).slice(0, 19);
}

/** `2024-04-17T04:00:13.543064Z`: six fractional digits (CISA ADP, CSAF from CISA). */
export function microsZ(ms: number): string {
  const micro = String(Math.floor(ms * 0.731) % 1000).padStart(3, '0');
  return `${isoBase(ms)}${micro}Z`;
}

/** Red Hat CSAF: `2024-09-03T17:57:24+00:00`. */
export function offsetTime(ms: number): string {
  return `${isoBase(ms).slice(0, 19)}+00:00`;
}

/** MSRC CVRF: `2024-01-09T08:00:00` (no zone). */
export function cvrfTime(ms: number): string {
  return isoBase(ms).slice(0, 19);
}

/** Metasploit: `2025-06-23 12:43:46 +0000`. */
export function metasploitTime(ms: number): string {
  return `${isoBase(ms).slice(0, 19).replace('T', ' ')} +0000`;
}

/** PHP's json_encode escapes every `/` (CISA KEV, PoC-in-GitHub). */
export function escapeSlashes(json: string): string {
  return json.replace(/\//g, '\\/');
}

/** GitHub's advisory database prints empty arrays as `[\n\n<indent>]`. */
export function githubEmptyArrays(json: string): string {
  return json.replace(/^( *)(.*)\[\]/gm, (_m, indent: string, head: string) => `${indent}${head}[\n\n${indent}]`);
}

/** An EPSS-style decimal: up to 5 places, trailing zeros dropped (`0.9248`, `0.018`). */
export function decimal5(x: number): string {
  const s = x.toFixed(5).replace(/0+$/, '').replace(/\.$/, '');
  return s === '' ? '0' : s;
}

/** Minimal XML text/attribute escaping. */
export function xmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** CSV field quoting: quoted when it holds a comma, quote, space or newline (as Exploit-DB does). */
export function csvField(value: string | number | null, alwaysQuote = false): string {
  if (value === null) return '';
  const s = String(value);
  if (alwaysQuote || /[",\s]/.test(s)) return `"${s.replace(/"/g, '""')}"`;
  return s;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

/** MSRC document id: `2024-Jan`. */
export function msrcMonthId(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${MONTHS[d.getUTCMonth()]}`;
}

export function monthName(ms: number): string {
  return ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'][new Date(ms).getUTCMonth()]!;
}
