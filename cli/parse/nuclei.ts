/**
 * nuclei-templates `cves.json` (JSON Lines, one template per line) → one `exploit` row per
 * line whose `ID` is a CVE. A template is a curated, working detection, so rows are `verified`.
 * The index's `CVSSScore` (a string, sometimes `"N/A"`) is not used: scores come from NVD/CNAs.
 */
import { RawFormatError } from '../../lib/errors.ts';
import type { ExploitRow } from '../stage/tables.ts';
import { documentSelection, readDocuments } from '../raw/documents.ts';
import { isObject, normalizeCveId, stringOrNull } from './common.ts';
import type { SourceParser } from './source.ts';

const TEMPLATE_SOURCE_BASE = 'https://github.com/projectdiscovery/nuclei-templates/blob/main';

/** The row of one line (1-based `line` for error messages); null for a template without a CVE id. */
export function nucleiRow(text: string, file: string, line: number): ExploitRow | null {
  let entry: unknown;
  try {
    entry = JSON.parse(text);
  } catch (err) {
    throw new RawFormatError(file, `line ${line}`, `malformed JSON (${(err as Error).message})`);
  }
  if (!isObject(entry)) throw new RawFormatError(file, `line ${line}`, 'a cves.json line must be a JSON object');
  const id = stringOrNull(entry.ID);
  if (!id) throw new RawFormatError(file, `line ${line}`, 'template has no "ID"');
  const cve_id = normalizeCveId(id);
  if (!cve_id) return null;
  const info = isObject(entry.Info) ? entry.Info : {};
  const path = stringOrNull(entry.file_path);
  return {
    cve_id,
    source: 'nuclei',
    exploit_id: id,
    url: path ? `${TEMPLATE_SOURCE_BASE}/${path}` : null,
    title: stringOrNull(info.Name),
    published: null,
    verified: true,
  };
}

/** Every row of one JSON Lines text; blank lines are skipped. */
export function nucleiRows(text: string, file: string): { rows: ExploitRow[]; lines: number } {
  const rows: ExploitRow[] = [];
  let lines = 0;
  const all = text.split('\n');
  for (let i = 0; i < all.length; i++) {
    const line = all[i]!.trim();
    if (line === '') continue;
    lines++;
    const row = nucleiRow(line, file, i + 1);
    if (row) rows.push(row);
  }
  return { rows, lines };
}

/** File endings this parser reads (readDocuments). */
const ENDINGS = ['cves.json', 'cves.jsonl'];

export const nucleiParser: SourceParser = {
  key: 'nuclei',
  reads: documentSelection(ENDINGS),
  async stage(dir, sink, progress) {
    let files = 0;
    let records = 0;
    // Only the index: a checkout of the whole repository also holds other JSON files.
    for await (const doc of readDocuments(dir, { endings: ENDINGS })) {
      files++;
      const { rows, lines } = nucleiRows(doc.text, doc.path);
      for (const row of rows) sink.emit('exploit', row);
      records += lines;
      progress.tick(lines);
    }
    return { files, records };
  },
};
