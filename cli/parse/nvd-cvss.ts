/**
 * The score of one CVSS metric object as the NVD and CVE 5 parsers stage it: the published
 * `baseScore`, or the score computed from the vector when the record has none. Computing is
 * the slow path (ae-cvss-calculator), so it only runs when the score is missing.
 */
import { quoted, RawFormatError } from '../../lib/errors.ts';
import { cvssBaseScore, cvssVectorProblem, optionalCvssScore, servableCvssVector, stringOrNull } from './common.ts';

export interface MetricScore {
  vector: string | null;
  base_score: number;
  base_severity: string | null;
}

/**
 * Reads vector, score and severity of a CVSS data object (`cvssData` in NVD, `cvssV3_1` &c.
 * in CVE 5). `severity` is passed separately because NVD v2 keeps it on the metric object.
 * A vector that does not parse is dropped (servableCvssVector) and the published score kept; a
 * RawFormatError names the record and the metric when a baseScore is there but no score (11.5,
 * "9.8": the vector's score is not put in its place unsaid), or when no score is there or
 * computes (naming the vector's problem).
 */
export function readMetricScore(
  data: Record<string, unknown>,
  severity: unknown,
  file: string,
  record: string,
  what: string,
): MetricScore {
  const vector = servableCvssVector(data.vectorString);
  const published = optionalCvssScore(data.baseScore, `${what}: baseScore`, file, record);
  const score = published ?? (vector === null ? null : cvssBaseScore(vector));
  if (score === null) {
    const given = stringOrNull(data.vectorString);
    const why = given === null ? 'no vectorString to compute it from' : vector === null ? `vectorString ${quoted(given)} ${cvssVectorProblem(given)}` : `none computes from vectorString ${quoted(given)}`;
    throw new RawFormatError(file, record, `${what}: no baseScore, and ${why}`);
  }
  const band = stringOrNull(severity);
  return { vector, base_score: score, base_severity: band === null ? null : band.toUpperCase() };
}
