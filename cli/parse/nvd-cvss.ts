/**
 * The score of one CVSS metric object as the NVD and CVE 5 parsers stage it: the published
 * `baseScore`, or the score computed from the vector when the record has none. Computing is
 * the slow path (ae-cvss-calculator), so it only runs when the score is missing.
 */
import { RawFormatError } from '../../lib/errors.ts';
import { cvssBaseScore, optionalCvssScore, optionalCvssVector, stringOrNull } from './common.ts';

export interface MetricScore {
  vector: string | null;
  base_score: number;
  base_severity: string | null;
}

/**
 * Reads vector, score and severity of a CVSS data object (`cvssData` in NVD, `cvssV3_1` &c.
 * in CVE 5). `severity` is passed separately because NVD v2 keeps it on the metric object.
 * A RawFormatError names the record and the metric when the vector does not parse (it would be
 * published as is beside a valid score), when a baseScore is there but no score (11.5, "9.8":
 * the vector's score is not put in its place unsaid), or when there is neither score nor vector.
 */
export function readMetricScore(
  data: Record<string, unknown>,
  severity: unknown,
  file: string,
  record: string,
  what: string,
): MetricScore {
  const vector = optionalCvssVector(data.vectorString, `${what}: vectorString`, file, record);
  const published = optionalCvssScore(data.baseScore, `${what}: baseScore`, file, record);
  const score = published ?? (vector === null ? null : cvssBaseScore(vector));
  if (score === null) {
    throw new RawFormatError(file, record, `${what}: no baseScore, and ${vector === null ? 'no vectorString to compute it from' : `none computes from vectorString ${JSON.stringify(vector)}`}`);
  }
  const band = stringOrNull(severity);
  return { vector, base_score: score, base_severity: band === null ? null : band.toUpperCase() };
}
