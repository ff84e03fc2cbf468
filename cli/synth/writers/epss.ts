/**
 * EPSS daily scores (`epss_scores-current.csv.gz`): the `#model_version:…,score_date:…`
 * comment line, the `cve,epss,percentile` header, one row per scored CVE in id order.
 */
import { join } from 'node:path';
import { decimal5 } from '../format.ts';
import { type OutputStats, TextStreamWriter } from '../output.ts';
import { type CorpusPlan, FLAG } from '../plan.ts';

export const EPSS_MODEL_VERSION = 'v2025.03.14';
export const EPSS_SCORE_DATE = '2026-09-30T12:00:22Z';

export async function writeEpss(plan: CorpusPlan, dir: string): Promise<OutputStats> {
  const out = await TextStreamWriter.open(join(dir, 'epss_scores-current.csv.gz'), true);
  await out.write(`#model_version:${EPSS_MODEL_VERSION},score_date:${EPSS_SCORE_DATE}\ncve,epss,percentile\n`);
  let rows = 0;
  let chunk: string[] = [];
  for (let i = 0; i < plan.n; i++) {
    if (!plan.has(i, FLAG.EPSS)) continue;
    chunk.push(`${plan.cveId(i)},${decimal5(plan.epss[i]!)},${decimal5(plan.percentile[i]!)}\n`);
    rows++;
    if (chunk.length === 10_000) {
      await out.write(chunk.join(''));
      chunk = [];
    }
  }
  await out.write(chunk.join(''));
  const stats = await out.close();
  return { entries: rows, bytes: stats.bytes };
}
