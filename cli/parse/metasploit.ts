/**
 * Metasploit `db/modules_metadata_base.json` → one `exploit` row per CVE reference of each
 * module. A module is a curated, working exploit or scanner, so rows are `verified`.
 */
import { RawFormatError } from '../../lib/errors.ts';
import type { ExploitRow } from '../stage/tables.ts';
import { documentSelection, parseJsonDocument, readDocuments } from '../raw/documents.ts';
import { isObject, normalizeCveId, optionalTimestamp, stringOrNull } from './common.ts';
import type { SourceParser } from './source.ts';

const MODULE_SOURCE_BASE = 'https://github.com/rapid7/metasploit-framework/blob/master';

/** The rows of one module (`key` is its entry in the metadata object, for error messages). */
export function metasploitRows(key: string, module: unknown, file: string): ExploitRow[] {
  if (!isObject(module)) throw new RawFormatError(file, key, 'module entry is not an object');
  const fullname = stringOrNull(module.fullname);
  if (!fullname) throw new RawFormatError(file, key, 'module has no "fullname"');
  if (module.references !== undefined && module.references !== null && !Array.isArray(module.references)) {
    throw new RawFormatError(file, key, '"references" is not an array');
  }
  const cves = new Set<string>();
  // References are prefixed strings (`CVE-2013-7409`, `EDB-28855`, `URL-http…`): only CVEs count.
  for (const ref of (module.references as unknown[] | undefined) ?? []) {
    const cve = normalizeCveId(ref);
    if (cve) cves.add(cve);
  }
  const path = stringOrNull(module.path);
  const url = path ? `${MODULE_SOURCE_BASE}${path.startsWith('/') ? '' : '/'}${path}` : null;
  const title = stringOrNull(module.name);
  const published = optionalTimestamp(module.disclosure_date, 'disclosure_date', file, key);
  return [...cves].map((cve_id) => ({ cve_id, source: 'metasploit', exploit_id: fullname, url, title, published, verified: true }));
}

/** File endings this parser reads (readDocuments). */
const ENDINGS = ['modules_metadata_base.json'];

export const metasploitParser: SourceParser = {
  key: 'metasploit',
  reads: documentSelection(ENDINGS),
  async stage(dir, sink, progress) {
    let files = 0;
    let records = 0;
    // Only the metadata file: a checkout of the framework holds many other JSON files.
    for await (const doc of readDocuments(dir, { endings: ENDINGS })) {
      files++;
      const json = parseJsonDocument(doc);
      if (!isObject(json)) throw new RawFormatError(doc.path, undefined, 'modules metadata must be a JSON object keyed by module');
      for (const [key, module] of Object.entries(json)) {
        for (const row of metasploitRows(key, module, doc.path)) sink.emit('exploit', row);
        records++;
        progress.tick();
      }
    }
    return { files, records };
  },
};
