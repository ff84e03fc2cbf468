/**
 * CISA KEV catalog (cve-feeds.md §3): `known_exploited_vulnerabilities.json`, one `kev` row per
 * entry plus its `cwes` as `cve_cwe` rows. Required fields are checked: an entry the catalog
 * schema would reject stops the build with its `cveID` (or position) named.
 * `forensicTriage` (newer schema, BOD 26-04) has no staging column and is ignored.
 */
import { quoted, RawFormatError } from '../../lib/errors.ts';
import { documentSelection, parseJsonDocument, readDocuments } from '../raw/documents.ts';
import type { KevRow, StageSink } from '../stage/tables.ts';
import { isJsonSchemaDocument, isObject, normalizeCveId, normalizeCweId, requiredDate, stringOrNull } from './common.ts';
import type { SourceParser } from './source.ts';

/** Text fields the schema requires on every entry. */
const REQUIRED_TEXT = ['vendorProject', 'product', 'vulnerabilityName', 'shortDescription', 'requiredAction'] as const;

/** Validates one catalog entry and builds its row; `position` is `vulnerabilities[i]`. */
export function readKevEntry(entry: unknown, catalogVersion: string | null, file: string, position: string): KevRow {
  if (!isObject(entry)) throw new RawFormatError(file, position, 'entry is not a JSON object');
  const cveId = normalizeCveId(entry.cveID);
  if (cveId === null) throw new RawFormatError(file, position, `missing or invalid cveID (${quoted(entry.cveID ?? null)})`);
  for (const key of REQUIRED_TEXT) {
    if (typeof entry[key] !== 'string') throw new RawFormatError(file, cveId, `missing required field ${key}`);
  }
  if (entry.cwes !== undefined && entry.cwes !== null && !Array.isArray(entry.cwes)) {
    throw new RawFormatError(file, cveId, '`cwes` is not an array');
  }
  const cwes: string[] = [];
  for (const value of (entry.cwes as unknown[] | null | undefined) ?? []) {
    const cwe = normalizeCweId(value);
    if (cwe === null) throw new RawFormatError(file, cveId, `cwes holds a value that is not a CWE id (${quoted(value)})`);
    if (!cwes.includes(cwe)) cwes.push(cwe);
  }
  return {
    cve_id: cveId,
    vendor_project: stringOrNull(entry.vendorProject),
    product: stringOrNull(entry.product),
    vulnerability_name: stringOrNull(entry.vulnerabilityName),
    date_added: requiredDate(entry.dateAdded, 'dateAdded', file, cveId),
    short_description: stringOrNull(entry.shortDescription),
    required_action: stringOrNull(entry.requiredAction),
    due_date: requiredDate(entry.dueDate, 'dueDate', file, cveId),
    known_ransomware_campaign_use: stringOrNull(entry.knownRansomwareCampaignUse),
    notes: stringOrNull(entry.notes),
    cwes,
    catalog_version: catalogVersion,
  };
}

/** Stages one parsed catalog; returns the number of entries. */
export function stageKevDocument(json: unknown, file: string, sink: StageSink): number {
  if (!isObject(json)) throw new RawFormatError(file, undefined, 'not a KEV catalog (expected a JSON object)');
  const entries = json.vulnerabilities;
  if (!Array.isArray(entries)) throw new RawFormatError(file, undefined, 'not a KEV catalog (`vulnerabilities` is not an array)');
  const catalogVersion = stringOrNull(json.catalogVersion);
  for (let i = 0; i < entries.length; i++) {
    const row = readKevEntry(entries[i], catalogVersion, file, `vulnerabilities[${i}]`);
    sink.emit('kev', row);
    for (const cwe of row.cwes) sink.emit('cve_cwe', { cve_id: row.cve_id, cwe_id: cwe, feed: 'kev', provider: null, file });
  }
  return entries.length;
}

/** File endings this parser reads (readDocuments). */
const ENDINGS = ['.json'];

export const kevParser: SourceParser = {
  key: 'kev',
  reads: documentSelection(ENDINGS),
  async stage(dir, sink, progress) {
    let files = 0;
    let records = 0;
    for await (const doc of readDocuments(dir, { endings: ENDINGS })) {
      const json = parseJsonDocument(doc);
      if (isJsonSchemaDocument(json)) continue;
      files++;
      const n = stageKevDocument(json, doc.path, sink);
      records += n;
      progress.tick(n);
    }
    return { files, records };
  },
};
