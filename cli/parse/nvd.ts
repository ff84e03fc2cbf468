/**
 * NVD CVE API 2.0 (cve-feeds.md §1): response pages (`{…, vulnerabilities: [{cve}]}`) or files
 * holding one bare `cve` object (the fkie-cad feed layout). Every version of a CVE seen is
 * staged; SQL keeps the one with the latest `lastModified`.
 *
 * Per record: `nvd_cve`, `cvss` (every metric, its role from `source`), `ssvc` (`ssvcV203`),
 * `cve_cwe` (`weaknesses`), `reference`, `product` (vulnerable CPE matches and `affected[]`).
 */
import { quoted, RawFormatError } from '../../lib/errors.ts';
import { documentSelection, parseJsonDocument, readDocuments } from '../raw/documents.ts';
import type { CvssRow, MetricRole, StageSink } from '../stage/tables.ts';
import { englishText, isObject, normalizeCveId, normalizeCweId, optionalDate, optionalTimestamp, requiredTimestamp, stringOrNull } from './common.ts';
import { emitAffectedProducts } from './cve5-affected.ts';
import { objects, stringList, type JsonObject } from './cve5-json.ts';
import { readSsvcOptions } from './cve5-ssvc.ts';
import { parseCpe23 } from './nvd-cpe.ts';
import { readMetricScore } from './nvd-cvss.ts';
import { feedTimestamp } from './nvd-timestamp.ts';
import type { SourceParser } from './source.ts';

const FEED = 'nvd';
/** The source NVD's own analysts publish under. */
export const NVD_SOURCE = 'nvd@nist.gov';

/** Metric arrays of `metrics`, with the CVSS version each holds. */
const METRIC_ARRAYS = [
  ['cvssMetricV40', '4.0'],
  ['cvssMetricV31', '3.1'],
  ['cvssMetricV30', '3.0'],
  ['cvssMetricV2', '2.0'],
] as const;

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Role rule of tables.ts: `type: Primary` is not trusted, the source decides. */
export function metricRole(source: string | null, sourceIdentifier: string | null): MetricRole {
  if (source === NVD_SOURCE) return 'nvd';
  if (source !== null && source === sourceIdentifier) return 'cna';
  return 'adp';
}

/**
 * Stages one `cve` object. `position` names the record in error messages when it has no
 * usable id (`vulnerabilities[3]`); undefined for a bare single-record file.
 */
export function stageNvdRecord(cve: unknown, file: string, position: string | undefined, sink: StageSink): void {
  if (!isObject(cve)) throw new RawFormatError(file, position, 'record is not a JSON object');
  const cveId = normalizeCveId(cve.id);
  if (cveId === null) throw new RawFormatError(file, position, `missing or invalid CVE id (${quoted(cve.id ?? null)})`);
  const published = requiredTimestamp(cve.published, 'published', file, cveId, feedTimestamp);
  const lastModified = requiredTimestamp(cve.lastModified, 'lastModified', file, cveId, feedTimestamp);
  const sourceIdentifier = stringOrNull(cve.sourceIdentifier);

  sink.emit('nvd_cve', {
    cve_id: cveId,
    published,
    last_modified: lastModified,
    vuln_status: stringOrNull(cve.vulnStatus),
    source_identifier: sourceIdentifier,
    description: englishText(cve.descriptions),
    cve_tags: [...new Set(objects(cve.cveTags).flatMap((t) => stringList(t.tags)))],
    kev_date_added: optionalDate(cve.cisaExploitAdd, 'cisaExploitAdd', file, cveId),
    kev_due_date: optionalDate(cve.cisaActionDue, 'cisaActionDue', file, cveId),
    kev_required_action: stringOrNull(cve.cisaRequiredAction),
    kev_vulnerability_name: stringOrNull(cve.cisaVulnerabilityName),
    file,
  });

  const metrics = isObject(cve.metrics) ? cve.metrics : {};
  stageMetrics(metrics, cveId, sourceIdentifier, lastModified, file, sink);
  stageSsvc(metrics, cveId, file, sink);
  stageWeaknesses(cve.weaknesses, cveId, file, sink);
  for (const ref of objects(cve.references)) {
    if (typeof ref.url !== 'string' || ref.url === '') continue;
    sink.emit('reference', { cve_id: cveId, url: ref.url, feed: FEED, provider: stringOrNull(ref.source), name: null, tags: stringList(ref.tags), file });
  }
  stageConfigurations(cve.configurations, cveId, file, sink);
  for (const block of objects(cve.affected)) emitAffectedProducts(block.affectedData, cveId, FEED, file, sink);
}

function stageMetrics(
  metrics: JsonObject,
  cveId: string,
  sourceIdentifier: string | null,
  modified: string,
  file: string,
  sink: StageSink,
): void {
  for (const [key, version] of METRIC_ARRAYS) {
    const entries = list(metrics[key]);
    for (let i = 0; i < entries.length; i++) {
      const metric = entries[i];
      const what = `metrics.${key}[${i}]`;
      if (!isObject(metric) || !isObject(metric.cvssData)) throw new RawFormatError(file, cveId, `${what} has no cvssData object`);
      // v2 keeps baseSeverity on the metric object; v3/v4 inside cvssData.
      const severity = version === '2.0' ? metric.baseSeverity : metric.cvssData.baseSeverity;
      const score = readMetricScore(metric.cvssData, severity, file, cveId, what);
      const provider = stringOrNull(metric.source);
      sink.emit('cvss', {
        cve_id: cveId,
        feed: 'nvd',
        role: metricRole(provider, sourceIdentifier),
        provider,
        version,
        ...score,
        user_interaction_required: version === '2.0' && typeof metric.userInteractionRequired === 'boolean' ? metric.userInteractionRequired : null,
        modified,
        file,
      } satisfies CvssRow);
    }
  }
}

function stageSsvc(metrics: JsonObject, cveId: string, file: string, sink: StageSink): void {
  for (const entry of objects(metrics.ssvcV203)) {
    const data = isObject(entry.ssvcData) ? entry.ssvcData : null;
    if (data === null) continue;
    const timestamp = optionalTimestamp(data.timestamp, 'metrics.ssvcV203[].ssvcData.timestamp', file, cveId, feedTimestamp);
    sink.emit('ssvc', { cve_id: cveId, feed: 'nvd', ...readSsvcOptions(data.options), timestamp, file });
  }
}

/** Every source's weaknesses; free text (not a CWE id) is skipped. One row per CWE and source. */
function stageWeaknesses(weaknesses: unknown, cveId: string, file: string, sink: StageSink): void {
  const seen = new Set<string>();
  for (const w of objects(weaknesses)) {
    const provider = stringOrNull(w.source);
    for (const d of objects(w.description)) {
      const cwe = normalizeCweId(d.value);
      if (cwe === null) continue;
      const key = `${cwe} ${provider}`;
      if (seen.has(key)) continue;
      seen.add(key);
      sink.emit('cve_cwe', { cve_id: cveId, cwe_id: cwe, feed: FEED, provider, file });
    }
  }
}

/**
 * Vulnerable CPE matches only: `vulnerable: false` entries are the platform a product runs on,
 * and a negated node's (or configuration's) entries are what must be absent (CPE Applicability
 * Language, NISTIR 7698: it holds when none of them is there), so never the vulnerable part,
 * whatever their flag.
 */
function stageConfigurations(configurations: unknown, cveId: string, file: string, sink: StageSink): void {
  for (const config of objects(configurations)) {
    if (config.negate === true) continue;
    for (const node of objects(config.nodes)) {
      if (node.negate === true) continue;
      for (const match of objects(node.cpeMatch)) {
        if (match.vulnerable !== true) continue;
        const criteria = stringOrNull(match.criteria);
        const name = criteria === null ? null : parseCpe23(criteria);
        if (criteria === null || name === null) {
          throw new RawFormatError(file, cveId, `cpeMatch criteria is not a CPE 2.3 name (${quoted(match.criteria ?? null)})`);
        }
        sink.emit('product', {
          cve_id: cveId,
          feed: FEED,
          vendor: name.vendor,
          product: name.product,
          cpe: criteria,
          package_name: null,
          collection_url: null,
          purl: null,
          ecosystem: null,
          version_start_including: stringOrNull(match.versionStartIncluding),
          version_start_excluding: stringOrNull(match.versionStartExcluding),
          version_end_including: stringOrNull(match.versionEndIncluding),
          version_end_excluding: stringOrNull(match.versionEndExcluding),
          file,
        });
      }
    }
  }
}

/**
 * Stages one parsed NVD document: an API 2.0 response page, a `{cve}` wrapper or a bare `cve`
 * object. Returns the number of records.
 */
export function stageNvdDocument(json: unknown, file: string, sink: StageSink): number {
  if (!isObject(json)) throw new RawFormatError(file, undefined, 'not an NVD response page or CVE record (expected a JSON object)');
  if ('vulnerabilities' in json) {
    const items = json.vulnerabilities;
    if (!Array.isArray(items)) throw new RawFormatError(file, undefined, '`vulnerabilities` is not an array');
    for (let i = 0; i < items.length; i++) {
      const item: unknown = items[i];
      const position = `vulnerabilities[${i}]`;
      if (!isObject(item) || !isObject(item.cve)) throw new RawFormatError(file, position, 'has no `cve` object');
      stageNvdRecord(item.cve, file, position, sink);
    }
    return items.length;
  }
  stageNvdRecord(isObject(json.cve) && !('id' in json) ? json.cve : json, file, undefined, sink);
  return 1;
}

/** File endings this parser reads (readDocuments). */
const ENDINGS = ['.json'];

export const nvdParser: SourceParser = {
  key: 'nvd',
  reads: documentSelection(ENDINGS),
  async stage(dir, sink, progress) {
    let files = 0;
    let records = 0;
    for await (const doc of readDocuments(dir, { endings: ENDINGS })) {
      files++;
      const n = stageNvdDocument(parseJsonDocument(doc), doc.path, sink);
      records += n;
      progress.tick(n);
    }
    return { files, records };
  },
};
