/**
 * CVE JSON 5.x records (CVE List V5, CISA Vulnrichment; cve-feeds.md §2): `*.json` in any tree
 * or inside the cvelistV5 zips. Every copy of a record is staged; SQL keeps the one with the
 * latest `cveMetadata.dateUpdated`.
 *
 * Per record: `cve5`; then per container (the CNA's, each ADP's) `cvss`, `cve_cwe`,
 * `reference` and `product` rows; the CISA ADP `other` metrics give `ssvc` rows and the KEV
 * date of the `cve5` row. Keys are read by name, never by position or text.
 */
import { basename } from 'node:path';
import { quoted, RawFormatError } from '../../lib/errors.ts';
import { documentSelection, parseJsonDocument, readDocuments } from '../raw/documents.ts';
import type { CvssRow, MetricRole, StageSink } from '../stage/tables.ts';
import { displayText, englishText, isObject, normalizeCveId, normalizeCweId, optionalDate, optionalTimestamp, stringOrNull } from './common.ts';
import { emitAffectedProducts } from './cve5-affected.ts';
import { objects, stringList, type JsonObject } from './cve5-json.ts';
import { readSsvcOptions } from './cve5-ssvc.ts';
import { readMetricScore } from './nvd-cvss.ts';
import { feedTimestamp } from './nvd-timestamp.ts';
import type { SourceParser } from './source.ts';

const FEED = 'cve5';

/** Metric keys of a CVE 5 `metrics[]` element, with the CVSS version each holds. */
const METRIC_KEYS = [
  ['cvssV4_0', '4.0'],
  ['cvssV3_1', '3.1'],
  ['cvssV3_0', '3.0'],
  ['cvssV2_0', '2.0'],
] as const;

/**
 * Index files of the cvelistV5 repository that sit beside the records (also inside its
 * release zips): not CVE records, skipped by name.
 */
const INDEX_FILES = new Set(['delta.json', 'deltalog.json']);

/** `problemTypes` text that starts with a CWE id, for entries typed CWE without `cweId`. */
const LEADING_CWE = /^\s*(CWE-\d+)\b/i;

export function isCve5IndexFile(path: string): boolean {
  return INDEX_FILES.has(basename(path).toLowerCase());
}

interface Container {
  body: JsonObject;
  role: MetricRole;
  /** `providerMetadata.shortName`. */
  provider: string | null;
  /** `providerMetadata.dateUpdated`. */
  dateUpdated: string | null;
  /** The freshness of the container's metrics: its `dateUpdated`, else the record's. */
  modified: string | null;
  /** Where the container sits, for error messages. */
  path: string;
}

function stageMetrics(c: Container, cveId: string, file: string, sink: StageSink): void {
  const metrics = objects(c.body.metrics);
  for (let i = 0; i < metrics.length; i++) {
    const metric = metrics[i]!;
    for (const [key, version] of METRIC_KEYS) {
      const data = metric[key];
      if (data === undefined) continue;
      const what = `${c.path}.metrics[${i}].${key}`;
      if (!isObject(data)) throw new RawFormatError(file, cveId, `${what} is not an object`);
      sink.emit('cvss', {
        cve_id: cveId,
        feed: 'cve5',
        role: c.role,
        provider: c.provider,
        version,
        ...readMetricScore(data, data.baseSeverity, file, cveId, what),
        // NVD's v2 flag; CVE 5 metrics have no such field.
        user_interaction_required: null,
        modified: c.modified,
        file,
      } satisfies CvssRow);
    }
  }
}

/** CISA ADP `other` metrics: SSVC rows are emitted, the KEV date is returned. */
function stageAdpOther(c: Container, cveId: string, file: string, sink: StageSink): string | null {
  let kevDateAdded: string | null = null;
  for (const metric of objects(c.body.metrics)) {
    const other = metric.other;
    if (!isObject(other) || !isObject(other.content)) continue;
    const type = typeof other.type === 'string' ? other.type.toLowerCase() : '';
    if (type === 'ssvc') {
      const content = other.content;
      const timestamp = optionalTimestamp(content.timestamp, `${c.path}.metrics[].other.content.timestamp`, file, cveId, feedTimestamp);
      sink.emit('ssvc', { cve_id: cveId, feed: 'cve5', ...readSsvcOptions(content.options), timestamp, file });
    } else if (type === 'kev') {
      kevDateAdded = optionalDate(other.content.dateAdded, `${c.path}.metrics[].other.content.dateAdded`, file, cveId) ?? kevDateAdded;
    }
  }
  return kevDateAdded;
}

function stageProblemTypes(c: Container, cveId: string, file: string, sink: StageSink): void {
  const seen = new Set<string>();
  for (const problem of objects(c.body.problemTypes)) {
    for (const d of objects(problem.descriptions)) {
      let cwe = normalizeCweId(d.cweId);
      if (cwe === null && typeof d.description === 'string') {
        const m = LEADING_CWE.exec(d.description);
        cwe = m ? normalizeCweId(m[1]) : null;
      }
      if (cwe === null || seen.has(cwe)) continue;
      seen.add(cwe);
      sink.emit('cve_cwe', { cve_id: cveId, cwe_id: cwe, feed: FEED, provider: c.provider, file });
    }
  }
}

function stageReferences(c: Container, cveId: string, file: string, sink: StageSink): void {
  for (const ref of objects(c.body.references)) {
    if (typeof ref.url !== 'string' || ref.url === '') continue;
    sink.emit('reference', { cve_id: cveId, url: ref.url, feed: FEED, provider: c.provider, name: stringOrNull(ref.name), tags: stringList(ref.tags), file });
  }
}

function containerOf(body: JsonObject, role: MetricRole, path: string, recordUpdated: string | null, file: string, cveId: string): Container {
  const meta = isObject(body.providerMetadata) ? body.providerMetadata : {};
  const dateUpdated = optionalTimestamp(meta.dateUpdated, `${path}.providerMetadata.dateUpdated`, file, cveId, feedTimestamp);
  return { body, role, provider: stringOrNull(meta.shortName), dateUpdated, modified: dateUpdated ?? recordUpdated, path };
}

/** Stages one parsed CVE 5 record. */
export function stageCve5Record(json: unknown, file: string, sink: StageSink): void {
  if (!isObject(json)) throw new RawFormatError(file, undefined, 'not a CVE 5 record (expected a JSON object)');
  if (json.dataType !== undefined && json.dataType !== 'CVE_RECORD') {
    throw new RawFormatError(file, undefined, `not a CVE 5 record (dataType ${quoted(json.dataType)})`);
  }
  const meta = json.cveMetadata;
  if (!isObject(meta)) throw new RawFormatError(file, undefined, 'not a CVE 5 record (no cveMetadata object)');
  // The record names itself: cveMetadata.cveId decides, whatever the file is called. CVE 5 gives
  // file names no meaning (mirrors, zips and Vulnrichment name and nest them their own ways), a
  // record is whole on its own, and its rows carry the file, so a misnamed one is traced.
  const cveId = normalizeCveId(meta.cveId);
  if (cveId === null) throw new RawFormatError(file, undefined, `missing or invalid cveMetadata.cveId (${quoted(meta.cveId ?? null)})`);
  const state = stringOrNull(meta.state);
  if (state === null) throw new RawFormatError(file, cveId, 'missing cveMetadata.state');
  const containers = json.containers;
  if (!isObject(containers) || !isObject(containers.cna)) throw new RawFormatError(file, cveId, 'missing containers.cna');

  const dateUpdated = optionalTimestamp(meta.dateUpdated, 'cveMetadata.dateUpdated', file, cveId, feedTimestamp);
  const cna = containerOf(containers.cna, 'cna', 'cna', dateUpdated, file, cveId);
  const adps = objects(containers.adp).map((body, i) => containerOf(body, 'adp', `adp[${i}]`, dateUpdated, file, cveId));

  let kevDateAdded: string | null = null;
  for (const c of [cna, ...adps]) {
    stageMetrics(c, cveId, file, sink);
    if (c.role === 'adp') kevDateAdded = stageAdpOther(c, cveId, file, sink) ?? kevDateAdded;
    stageProblemTypes(c, cveId, file, sink);
    stageReferences(c, cveId, file, sink);
    emitAffectedProducts(c.body.affected, cveId, FEED, file, sink);
  }

  sink.emit('cve5', {
    cve_id: cveId,
    state: state.toUpperCase(),
    assigner_org_id: stringOrNull(meta.assignerOrgId),
    assigner_short_name: stringOrNull(meta.assignerShortName),
    date_reserved: optionalTimestamp(meta.dateReserved, 'cveMetadata.dateReserved', file, cveId, feedTimestamp),
    date_published: optionalTimestamp(meta.datePublished, 'cveMetadata.datePublished', file, cveId, feedTimestamp),
    date_updated: dateUpdated,
    date_rejected: optionalTimestamp(meta.dateRejected, 'cveMetadata.dateRejected', file, cveId, feedTimestamp),
    cna_date_updated: cna.dateUpdated,
    title: displayText(cna.body.title),
    description: englishText(cna.body.descriptions),
    rejected_reason: englishText(cna.body.rejectedReasons),
    cna_tags: [...new Set(stringList(cna.body.tags))],
    adp_kev_date_added: kevDateAdded,
    file,
  });
}

/** File endings this parser reads (readDocuments). */
const ENDINGS = ['.json'];

export const cve5Parser: SourceParser = {
  key: 'cvelist',
  reads: documentSelection(ENDINGS),
  async stage(dir, sink, progress) {
    let files = 0;
    let records = 0;
    for await (const doc of readDocuments(dir, { endings: ENDINGS })) {
      if (isCve5IndexFile(doc.path)) continue;
      files++;
      stageCve5Record(parseJsonDocument(doc), doc.path, sink);
      records++;
      progress.tick();
    }
    return { files, records };
  },
};
