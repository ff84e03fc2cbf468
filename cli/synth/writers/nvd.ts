/**
 * NVD CVE API 2.0: one `vulnerabilities[].cve` record per CVE, in the shapes of the real
 * samples (metric `source`/`type`, NVD Primary vs CNA Secondary, CNA typed Primary when NVD
 * has no score, v2 flags on the metric object, KEV mirror, `ssvcV203`, CPE configurations with
 * AND nodes for firmware), and the paging envelope of 2,000 records per response.
 */
import { CISA_ADP, CVE_PROGRAM, NVD_SOURCE } from '../cnas.ts';
import { cpe23, cpe22, hardwareCpe23 } from '../cpe.ts';
import { type VectorInfo, nvdMetric } from '../cvss.ts';
import type { CveDetail } from '../detail.ts';
import { isoDate, microsZ, nvdTime } from '../format.ts';
import { KIND } from '../plan.ts';
import { rngFor, type Rng } from '../random.ts';
import { CORPUS_NOW } from '../scale.ts';
import type { Branch } from '../versions.ts';
import { cve5Affected } from './cvelist.ts';

export const NVD_PAGE_SIZE = 2000;

const METRIC_KEYS: Record<VectorInfo['version'], string> = {
  '4.0': 'cvssMetricV40',
  '3.1': 'cvssMetricV31',
  '3.0': 'cvssMetricV30',
  '2.0': 'cvssMetricV2',
};

const METRIC_ORDER: Array<VectorInfo['version']> = ['4.0', '3.1', '3.0', '2.0'];

type Metric = ReturnType<typeof nvdMetric> | { source: string; ssvcData: unknown };

function metrics(d: CveDetail, rng: Rng): Record<string, Metric[]> {
  // When NVD has not scored, a CNA score is sometimes typed Primary (real gotcha).
  const cnaType = d.nvdMetrics.length === 0 && rng.chance(0.3) ? 'Primary' : 'Secondary';
  const entries: Array<[VectorInfo, Metric]> = [];
  for (const v of d.cnaMetrics) entries.push([v, nvdMetric(v, d.cna.sourceIdentifier, cnaType)]);
  for (const v of d.nvdMetrics) entries.push([v, nvdMetric(v, NVD_SOURCE, 'Primary')]);
  if (d.adpMetric) entries.push([d.adpMetric, nvdMetric(d.adpMetric, CISA_ADP.orgId, 'Secondary')]);
  // Array order carries no meaning: the Secondary comes first in some records.
  if (rng.chance(0.5)) entries.reverse();
  const ordered: Record<string, Metric[]> = {};
  for (const version of METRIC_ORDER) {
    for (const [v, m] of entries) if (v.version === version) (ordered[METRIC_KEYS[version]] ??= []).push(m);
  }
  if (d.nvdSsvc && d.ssvc) {
    ordered.ssvcV203 = [
      {
        source: CISA_ADP.orgId,
        ssvcData: {
          timestamp: microsZ(d.ssvc.timestamp),
          id: d.id,
          options: [{ exploitation: d.ssvc.exploitation }, { automatable: d.ssvc.automatable }, { technicalImpact: d.ssvc.technicalImpact }],
          role: 'CISA Coordinator',
          version: '2.0.3',
        },
      },
    ];
  }
  return ordered;
}

function weaknesses(d: CveDetail, rng: Rng) {
  const out: Array<{ source: string; type: string; description: Array<{ lang: string; value: string }> }> = [];
  if (d.cnaCwe) {
    out.push({ source: d.cna.sourceIdentifier, type: !d.nvdWeakness && rng.chance(0.3) ? 'Primary' : 'Secondary', description: [{ lang: 'en', value: `CWE-${d.cwe}` }] });
  }
  if (d.nvdWeakness) out.push({ source: NVD_SOURCE, type: 'Primary', description: [{ lang: 'en', value: d.nvdWeakness }] });
  return out;
}

function matchId(rng: Rng): string {
  return rng.uuid().toUpperCase();
}

function rangeMatch(criteria: string, b: Branch, rng: Rng) {
  const m: Record<string, unknown> = { vulnerable: true, criteria };
  if (b.introduced !== '0') m.versionStartIncluding = b.introduced;
  if (b.fixed) m.versionEndExcluding = b.fixed;
  else if (b.lastAffected) m.versionEndIncluding = b.lastAffected;
  m.matchCriteriaId = matchId(rng);
  return m;
}

function configurations(d: CveDetail, rng: Rng) {
  const configs: unknown[] = [];
  for (const p of d.products) {
    let matches: unknown[];
    if (d.legacy) {
      // Old records list exact versions rather than ranges.
      matches = [];
      const last = d.affectedUpTo.split('.');
      for (let k = Math.min(5, rng.int(1, 5)); k > 0; k--) {
        const v = [...last.slice(0, -1), String(Math.max(0, Number(last[last.length - 1]) - k + 1))].join('.');
        matches.push({ vulnerable: true, criteria: cpe23(p, v), matchCriteriaId: matchId(rng) });
      }
    } else matches = d.branches.map((b) => rangeMatch(cpe23(p), b, rng));
    const node = { operator: 'OR', negate: false, cpeMatch: matches };
    const hw = hardwareCpe23(p);
    if (hw) {
      configs.push({
        operator: 'AND',
        nodes: [node, { operator: 'OR', negate: false, cpeMatch: [{ vulnerable: false, criteria: hw, matchCriteriaId: matchId(rng) }] }],
      });
    } else configs.push({ nodes: [node] });
  }
  return configs;
}

function references(d: CveDetail) {
  const out: Array<{ url: string; source: string; tags?: string[] }> = [];
  const sources = [d.cna.sourceIdentifier];
  if (d.cveProgramUpdated) sources.push(CVE_PROGRAM.orgId);
  for (const source of sources) {
    for (const r of d.references) out.push(r.nvdTags ? { url: r.url, source, tags: r.nvdTags } : { url: r.url, source });
  }
  if (d.kev) {
    out.push({ url: `https://www.cisa.gov/known-exploited-vulnerabilities-catalog?field_cve=${d.id}`, source: CISA_ADP.orgId, tags: ['US Government Resource'] });
  }
  return out;
}

/** The NVD API 2.0 `cve` object for one CVE. */
export function nvdRecord(d: CveDetail, root: number): Record<string, unknown> {
  const rng = rngFor(root, 'nvd', d.index);
  const rec: Record<string, unknown> = {
    id: d.id,
    sourceIdentifier: d.cna.sourceIdentifier,
    published: nvdTime(d.published),
    lastModified: nvdTime(d.nvdModified),
    vulnStatus: d.vulnStatus,
  };
  if (d.cveTags) rec.cveTags = d.cveTags.length ? [{ sourceIdentifier: d.cna.sourceIdentifier, tags: d.cveTags }] : [];
  rec.descriptions = d.descriptionEs
    ? [{ lang: 'en', value: d.description }, { lang: 'es', value: d.descriptionEs }]
    : [{ lang: 'en', value: d.description }];
  if (d.kind === KIND.REJECTED) {
    rec.metrics = {};
    rec.references = [];
    return rec;
  }
  // The newest records carry NVD's new top-level `affected[]` (CVE 5 style).
  if (d.year >= 2026 && rng.chance(0.5)) {
    const affectedData = cve5Affected(d, false).map((a) => ({ ...a, cpes: [cpe22(d.product)] }));
    rec.affected = [{ source: d.cna.sourceIdentifier, affectedData }];
  }
  rec.metrics = metrics(d, rng);
  if (d.kev) {
    rec.cisaExploitAdd = isoDate(d.kev.dateAdded);
    rec.cisaActionDue = isoDate(d.kev.dueDate);
    rec.cisaRequiredAction = d.kev.requiredAction;
    rec.cisaVulnerabilityName = d.kev.vulnerabilityName;
  }
  const w = weaknesses(d, rng);
  if (w.length) rec.weaknesses = w;
  if (d.configured) rec.configurations = configurations(d, rng);
  rec.references = references(d);
  return rec;
}

/** The response envelope of one page, around already-serialised, comma-joined `{"cve": …}` items. */
export function nvdPage(items: string, count: number, startIndex: number, totalResults: number): string {
  const head =
    `{"resultsPerPage":${count},"startIndex":${startIndex},"totalResults":${totalResults},` +
    `"format":"NVD_CVE","version":"2.0","timestamp":"${nvdTime(CORPUS_NOW)}","vulnerabilities":[`;
  return `${head}${items}]}`;
}

/** `page-000000.json`, `page-000001.json`, … (page number, six digits). */
export function nvdPageName(page: number): string {
  return `page-${String(page).padStart(6, '0')}.json`;
}
