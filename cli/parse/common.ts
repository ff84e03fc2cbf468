/**
 * Small normalisers shared by every parser: timestamps, ids, CVSS scores from vectors, SSVC
 * spellings. One place each, so every feed is read the same way.
 */
import cvssCalculator from 'ae-cvss-calculator';
import { ADVISORY_ID_MESSAGE, isAdvisoryId } from '../../lib/advisory-keys.ts';
import { daysInMonth, YEAR_MAX, YEAR_MIN } from '../../lib/calendar.ts';
import { quoted, RawFormatError } from '../../lib/errors.ts';

const { Cvss2, Cvss3P0, Cvss3P1, Cvss4P0 } = cvssCalculator as unknown as {
  Cvss2: CvssCtor;
  Cvss3P0: CvssCtor;
  Cvss3P1: CvssCtor;
  Cvss4P0: CvssCtor;
};
type CvssCtor = new (vector: string) => { calculateScores(): { base?: number; baseMetricsOnly?: number } };

/**
 * A CVE id as the CVE JSON 5 schema writes its pattern (`^CVE-[0-9]{4}-[0-9]{4,19}$`) and the
 * API reads one (api/http/params.ts CVE_ID_PATTERN): an id of 20 or more digits was published,
 * listed and exported, and its own page answered 400 "expected a CVE identifier".
 */
export const CVE_ID = /^CVE-\d{4}-\d{4,19}$/;

/** `cve-2024-1234` → `CVE-2024-1234`; null when it is not a CVE id. */
export function normalizeCveId(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const id = value.trim().toUpperCase();
  return CVE_ID.test(id) ? id : null;
}

/** `79`, `CWE-79`, `cwe-79` → `CWE-79`; NVD pseudo ids kept; anything else null. */
export function normalizeCweId(value: unknown): string | null {
  if (typeof value === 'number' && Number.isInteger(value)) return `CWE-${value}`;
  if (typeof value !== 'string') return null;
  const v = value.trim();
  if (v === 'NVD-CWE-noinfo' || v === 'NVD-CWE-Other') return v;
  const m = /^(?:CWE-)?(\d+)$/i.exec(v);
  return m ? `CWE-${Number(m[1])}` : null;
}

/**
 * The one shape every feed's timestamp is brought to before it is read: date, time, zone. The
 * year may have more digits here only so that the refusal can say which year it is.
 */
const ISO_SHAPE = /^(\d{4,})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::\d{2})?(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i;

/** A timestamp read: its ISO-8601 UTC form, or why there is none. */
export type TimestampReading = { ts: string; problem?: undefined } | { ts: null; problem: string };

/**
 * Any timestamp the feeds publish → ISO-8601 UTC with `Z`. A value without a zone (NVD,
 * legacy CVE 5) is UTC. Accepts `+0000` offsets, 4–6 fractional digits, a space instead of
 * `T` (Metasploit `2025-06-23 12:43:46 +0000`) and bare dates.
 *
 * Date.parse alone is not enough: V8 rolls day 30 or 31 of any month over into the next one
 * (`2024-02-30` became 2024-03-01, published as such), reads `24:00` as the next midnight, and
 * falls back to a lenient local-time reader for other shapes (`Feb 30 2024`). So the shape is
 * matched first, the day checked against its month, and the year kept within what the API
 * serves (lib/calendar.ts): a date outside it would be stored and never listed.
 */
export function readUtcTimestamp(value: unknown): TimestampReading {
  if (typeof value !== 'string') return { ts: null, problem: 'not a date-time string' };
  let v = value.trim().replace(' ', 'T').replace(/\s+/g, '');
  if (/^\d{4,}-\d{2}-\d{2}$/.test(v)) v += 'T00:00:00Z';
  v = v.replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  if (!/(Z|[+-]\d{2}:\d{2})$/i.test(v)) v += 'Z';
  const m = ISO_SHAPE.exec(v);
  if (!m) return { ts: null, problem: 'not a date-time (expected YYYY-MM-DD or YYYY-MM-DDThh:mm:ss, optionally with a zone)' };
  const [, y, mo, d, hh] = m as unknown as [string, string, string, string, string];
  const year = Number(y);
  const month = Number(mo);
  if (year < YEAR_MIN || year > YEAR_MAX) return { ts: null, problem: `year ${y} is outside ${YEAR_MIN}–${YEAR_MAX}` };
  if (month < 1 || month > 12) return { ts: null, problem: `month ${mo} does not exist` };
  if (Number(d) < 1 || Number(d) > daysInMonth(year, month)) return { ts: null, problem: `day ${d} does not exist in ${y}-${mo}` };
  if (Number(hh) > 23) return { ts: null, problem: `hour ${hh} does not exist` };
  // Date.parse accepts at most millisecond precision reliably: trim longer fractions.
  const ms = Date.parse(v.replace(/(\.\d{3})\d+/, '$1'));
  if (Number.isNaN(ms)) return { ts: null, problem: 'not a date-time (a minute, second or zone out of range)' };
  const ts = new Date(ms).toISOString();
  // The zone can carry a date across a year's edge: the year stored is the UTC one.
  const utcYear = /^\d{4}-/.test(ts) ? Number(ts.slice(0, 4)) : Number.NaN;
  if (!(utcYear >= YEAR_MIN && utcYear <= YEAR_MAX)) return { ts: null, problem: `year ${ts.slice(0, ts.indexOf('-', 1))} (UTC) is outside ${YEAR_MIN}–${YEAR_MAX}` };
  return { ts };
}

/** readUtcTimestamp's value alone: null when unreadable. */
export function toUtcTimestamp(value: unknown): string | null {
  return readUtcTimestamp(value).ts;
}

/** A reader of one timestamp: toUtcTimestamp, or the CVE feeds' fast path in front of it. */
export type TimestampReader = (value: unknown) => string | null;

function absent(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/** The refusal of a value that is there but is no timestamp, saying why (this path is rare: it reads again). */
function unreadableTimestamp(value: unknown, what: string, file: string, record: string | undefined): RawFormatError {
  return new RawFormatError(file, record, `unreadable ${what} (${quoted(value)}): ${readUtcTimestamp(value).problem ?? 'not a date-time'}`);
}

/**
 * A timestamp a record may leave out: null when absent (missing, null or ""); a RawFormatError
 * naming the file, the record and the field when present but unreadable. Every parser reads its
 * dates through this or requiredTimestamp: a value that is there and wrong is a format change
 * or a broken file, never a date to guess.
 */
export function optionalTimestamp(value: unknown, what: string, file: string, record: string | undefined, read: TimestampReader = toUtcTimestamp): string | null {
  if (absent(value)) return null;
  const ts = read(value);
  if (ts === null) throw unreadableTimestamp(value, what, file, record);
  return ts;
}

/** A timestamp a record must have: a RawFormatError naming the file, the record and the field otherwise. */
export function requiredTimestamp(value: unknown, what: string, file: string, record: string | undefined, read: TimestampReader = toUtcTimestamp): string {
  if (absent(value)) throw new RawFormatError(file, record, `missing ${what}`);
  return optionalTimestamp(value, what, file, record, read)!;
}

/** optionalTimestamp as a `YYYY-MM-DD` (UTC) date. */
export function optionalDate(value: unknown, what: string, file: string, record: string | undefined): string | null {
  return optionalTimestamp(value, what, file, record)?.slice(0, 10) ?? null;
}

/** requiredTimestamp as a `YYYY-MM-DD` (UTC) date. */
export function requiredDate(value: unknown, what: string, file: string, record: string | undefined): string {
  return requiredTimestamp(value, what, file, record).slice(0, 10);
}

export type CvssVersion = '2.0' | '3.0' | '3.1' | '4.0';

/** The CVSS version a vector declares (`CVSS:3.1/…`); a bare `AV:N/AC:L/Au:N/…` is v2. */
export function cvssVersionOf(vector: string): CvssVersion | null {
  const m = /^CVSS:(\d\.\d)\//.exec(vector.trim());
  if (m) return m[1] === '2.0' || m[1] === '3.0' || m[1] === '3.1' || m[1] === '4.0' ? m[1] : null;
  return /(^|\/)Au:[MSN]/.test(vector) ? '2.0' : null;
}

/** The ae-cvss-calculator class of a CVSS version. */
function cvssClass(version: CvssVersion | null): CvssCtor | null {
  return version === '2.0' ? Cvss2 : version === '3.0' ? Cvss3P0 : version === '3.1' ? Cvss3P1 : version === '4.0' ? Cvss4P0 : null;
}

/**
 * Base score of a vector, computed by ae-cvss-calculator (metrics read by key, so
 * non-canonical order and temporal/threat suffixes are fine). Null when the vector is invalid.
 * For CVSS 4.0 it is the score of the base metrics alone (CVSS-B), the `baseScore` FIRST's
 * schema and every publisher give: the library's `base` of a v4 vector scores every metric
 * present, so a vector carrying `E:P` came out 1.9 where the CNA publishes 4.8.
 */
export function cvssBaseScore(vector: string): number | null {
  const v = vector.trim();
  const version = cvssVersionOf(v);
  const Ctor = cvssClass(version);
  if (!Ctor) return null;
  try {
    return baseScoreOf(version!, new Ctor(v).calculateScores());
  } catch {
    return null;
  }
}

/** The base score among ae-cvss-calculator's scores of a `version` vector (see cvssBaseScore). */
export function baseScoreOf(version: CvssVersion, scores: { base?: number; baseMetricsOnly?: number }): number | null {
  const base = version === '4.0' ? scores.baseMetricsOnly : scores.base;
  return typeof base === 'number' && Number.isFinite(base) ? base : null;
}

/**
 * Vectors already checked, with the verdict: the CVE feeds repeat a few thousand distinct vectors
 * over ~700,000 metrics. Bounded, in case a feed is all distinct.
 */
const checkedVectors = new Map<string, string | null>();
const CHECKED_VECTORS_MAX = 50_000;

/**
 * Why a published vector is no CVSS vector, or null when it is one, as ae-cvss-calculator reads
 * it: its version named, every metric and value known to that version, and for v2 and v3 every
 * base metric there (the base score computes). A v4 vector is only parsed: computing its score
 * costs the library about a millisecond, and it reads missing v4 metrics as "not defined".
 */
export function cvssVectorProblem(vector: string): string | null {
  const v = vector.trim();
  const known = checkedVectors.get(v);
  if (known !== undefined) return known;
  const version = cvssVersionOf(v);
  const Ctor = cvssClass(version);
  let problem: string | null = null;
  if (!Ctor) {
    problem = 'names no CVSS version (CVSS:3.1/…, CVSS:4.0/…, or a v2 vector with Au:)';
  } else {
    try {
      const parsed = new Ctor(v);
      if (version !== '4.0' && !Number.isFinite(parsed.calculateScores().base)) problem = `lacks a CVSS ${version} base metric`;
    } catch (err) {
      // The library's own refusals name the metric ("Unknown component value Z for component AV");
      // a TypeError from inside it says nothing to the reader.
      problem = err instanceof TypeError ? `does not parse as CVSS ${version}` : `does not parse as CVSS ${version}: ${(err as Error).message}`;
    }
  }
  if (checkedVectors.size >= CHECKED_VECTORS_MAX) checkedVectors.clear();
  checkedVectors.set(v, problem);
  return problem;
}

/**
 * A published CVSS vector as the snapshot keeps it: null when absent, and null when it is no
 * vector (cvssVectorProblem) — dropped, not served as a vector (a client parsing it would choke)
 * and not fatal: one CNA's typo among 340,000 records must not stop the nightly build, and the
 * metric keeps its published score. Where there is no score either, the parser's error names the
 * vector's problem (cvssVectorProblem). Every parser reads its vectors through this.
 */
export function servableCvssVector(value: unknown): string | null {
  const vector = stringOrNull(value);
  return vector === null || cvssVectorProblem(vector) !== null ? null : vector;
}

/**
 * A published CVSS base score: null when absent; a RawFormatError naming the file, the record
 * and the field when it is there but no score from 0 to 10 (11.5, "9.8"): the score a vector
 * computes is not put in its place unsaid.
 */
export function optionalCvssScore(value: unknown, what: string, file: string, record: string | undefined): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 10) return value;
  const problem = typeof value === 'number' && Number.isFinite(value) ? 'is out of range 0–10' : 'is not a number';
  throw new RawFormatError(file, record, `${what} ${quoted(value)} ${problem}`);
}

/** CVSS v3/v4 qualitative band of a score (NONE for 0). */
export function cvssSeverity(score: number): 'NONE' | 'LOW' | 'MEDIUM' | 'HIGH' | 'CRITICAL' {
  if (score >= 9) return 'CRITICAL';
  if (score >= 7) return 'HIGH';
  if (score >= 4) return 'MEDIUM';
  if (score > 0) return 'LOW';
  return 'NONE';
}

/** NVD's v2 bands: LOW 0.0–3.9, MEDIUM 4.0–6.9, HIGH 7.0–10.0; v2 has no CRITICAL. */
export function cvssV2Severity(score: number): 'LOW' | 'MEDIUM' | 'HIGH' {
  return score >= 7 ? 'HIGH' : score >= 4 ? 'MEDIUM' : 'LOW';
}

/** SSVC Exploitation in any spelling (`Active`, `public poc`, `PoC`) → none | poc | active. */
export function normalizeSsvcExploitation(value: unknown): 'none' | 'poc' | 'active' | null {
  if (typeof value !== 'string') return null;
  const v = value.trim().toLowerCase();
  if (v === 'none') return 'none';
  if (v === 'poc' || v === 'public poc' || v === 'public_poc') return 'poc';
  if (v === 'active') return 'active';
  return null;
}

export function normalizeSsvcAutomatable(value: unknown): 'yes' | 'no' | null {
  if (typeof value !== 'string') return null;
  const v = value.trim().toLowerCase();
  return v === 'yes' || v === 'no' ? v : null;
}

export function normalizeSsvcTechnicalImpact(value: unknown): 'partial' | 'total' | null {
  if (typeof value !== 'string') return null;
  const v = value.trim().toLowerCase();
  return v === 'partial' || v === 'total' ? v : null;
}

/**
 * A display text of a record (a description, a title): without the blank lines and spaces the
 * CNA left around it, null when nothing else is there. Real records start with a line break
 * (NVD's CVE-2024-2453) or end with two (the CNA text of CVE-2024-1086, CVE-2023-5129), and an
 * answer served them as the text's first and last lines. Inner line breaks are kept.
 */
export function displayText(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  return text === '' ? null : text;
}

/**
 * The English text of a `[{lang, value}]` list (`en`, `en-US`, …), else the first, as
 * displayText keeps it; null if none (so a blank one leaves the place to another feed's text).
 */
export function englishText(list: unknown, key = 'value'): string | null {
  if (!Array.isArray(list)) return null;
  const items = list.filter((d): d is Record<string, unknown> => typeof d === 'object' && d !== null);
  // `en`, `en-US` and `en_US` (the CVE 5 schema's language pattern allows either separator).
  const en = items.find((d) => typeof d.lang === 'string' && /^en(?:$|[-_])/i.test(d.lang)) ?? items[0];
  return displayText(en?.[key]);
}

/**
 * A vendor advisory id the API can serve (lib/advisory-keys.ts); otherwise a RawFormatError
 * naming the file and the id (cut short: the id may be what is too long).
 */
export function servableAdvisoryId(id: string, field: string, file: string): string {
  if (isAdvisoryId(id)) return id;
  const shown = id.length > 80 ? `${id.slice(0, 80)}…` : id;
  throw new RawFormatError(file, shown, `${field} cannot be served by the API: ${ADVISORY_ID_MESSAGE} (found ${id.length})`);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/**
 * A text field a format defines as a string: null when absent (missing, null or ""); a
 * RawFormatError naming the file, the record and the field when it holds anything else (a
 * CSAF title of 42 was dropped without a word), as a date that is there and wrong is.
 */
export function optionalText(value: unknown, what: string, file: string, record: string | undefined): string | null {
  if (value === undefined || value === null || typeof value === 'string') return stringOrNull(value);
  throw new RawFormatError(file, record, `${what} is not a string (${quoted(value)})`);
}

/**
 * A JSON Schema document (`$schema` plus `properties`), as feeds publish beside their data
 * (cisagov/kev-data ships `known_exploited_vulnerabilities_schema.json` next to the catalog):
 * not data, so readers skip it rather than fail on it.
 */
export function isJsonSchemaDocument(json: unknown): boolean {
  return isObject(json) && typeof json.$schema === 'string' && isObject(json.properties);
}
