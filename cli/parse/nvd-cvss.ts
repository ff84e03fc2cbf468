/**
 * The score of one CVSS metric object as the NVD and CVE 5 parsers stage it: the published
 * `baseScore`, or the score computed from the vector when the record has none. Computing is
 * the slow path (ae-cvss-calculator), so it only runs when the score is missing.
 */
import { RawFormatError } from '../../lib/errors.ts';
import { cvssBaseScore, optionalCvssVector, stringOrNull } from './common.ts';

export interface MetricScore {
  vector: string | null;
  base_score: number;
  base_severity: string | null;
}

function isScore(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 10;
}

/** What is wrong with a baseScore that is no score. */
function scoreProblem(value: unknown): string {
  if (value === undefined || value === null) return 'no baseScore';
  if (typeof value === 'number' && Number.isFinite(value)) return `baseScore ${value} is out of range 0–10`;
  return `baseScore ${JSON.stringify(value)} is not a number`;
}

/**
 * Reads vector, score and severity of a CVSS data object (`cvssData` in NVD, `cvssV3_1` &c.
 * in CVE 5). `severity` is passed separately because NVD v2 keeps it on the metric object.
 * A RawFormatError names the record and the metric when the vector does not parse (it would be
 * published as is beside a valid score), or when there is neither a usable score nor a vector.
 */
export function readMetricScore(
  data: Record<string, unknown>,
  severity: unknown,
  file: string,
  record: string,
  what: string,
): MetricScore {
  const vector = optionalCvssVector(data.vectorString, `${what}: vectorString`, file, record);
  let score: number | null = isScore(data.baseScore) ? data.baseScore : null;
  if (score === null && vector !== null) score = cvssBaseScore(vector);
  if (score === null) {
    throw new RawFormatError(file, record, `${what}: ${scoreProblem(data.baseScore)} and ${vector === null ? 'no vectorString to compute it from' : `its vectorString ${JSON.stringify(vector)} gives none`}`);
  }
  const band = stringOrNull(severity);
  return { vector, base_score: score, base_severity: band === null ? null : band.toUpperCase() };
}
