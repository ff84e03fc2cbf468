/**
 * nomi-sec/PoC-in-GitHub per-CVE arrays (`2024/CVE-2024-1234.json`) → one `exploit` row per
 * repository. The CVE comes from the file name; the repos are unreviewed (fake and malware
 * PoCs exist), so `verified` is null, not true.
 */
import { RawFormatError } from '../../lib/errors.ts';
import type { ExploitRow } from '../stage/tables.ts';
import { documentSelection, parseJsonDocument, readDocuments } from '../raw/documents.ts';
import { isObject, normalizeCveId, optionalTimestamp, stringOrNull } from './common.ts';
import type { SourceParser } from './source.ts';

/** `…/2002/CVE-2002-0083.json` (or a zip member path) → `CVE-2002-0083`; null for other names. */
export function pocCveOfPath(path: string): string | null {
  const base = path.split(/[/\\!]/).pop() ?? '';
  const m = /^(CVE-\d{4}-\d{4,})\.json(?:\.gz)?$/i.exec(base);
  return m ? normalizeCveId(m[1]) : null;
}

/** The rows of one per-CVE file. */
export function pocInGithubRows(json: unknown, cveId: string, file: string): ExploitRow[] {
  if (!Array.isArray(json)) throw new RawFormatError(file, cveId, 'a PoC-in-GitHub file must be a JSON array of repositories');
  return json.map((repo, i) => {
    const fullName = isObject(repo) ? stringOrNull(repo.full_name) : null;
    if (!isObject(repo) || !fullName) throw new RawFormatError(file, `${cveId} [${i}]`, 'repository entry has no "full_name"');
    return {
      cve_id: cveId,
      source: 'poc-in-github',
      exploit_id: fullName,
      url: stringOrNull(repo.html_url),
      title: stringOrNull(repo.description),
      published: optionalTimestamp(repo.created_at, 'created_at', file, `${cveId} [${i}]`),
      verified: null,
    };
  });
}

/** File endings this parser reads (readDocuments). */
const ENDINGS = ['.json'];

export const pocInGithubParser: SourceParser = {
  key: 'pocInGithub',
  reads: documentSelection(ENDINGS),
  async stage(dir, sink, progress) {
    let files = 0;
    let records = 0;
    for await (const doc of readDocuments(dir, { endings: ENDINGS })) {
      // Only per-CVE files carry PoCs; anything else in the repository is not data.
      const cveId = pocCveOfPath(doc.path);
      if (!cveId) continue;
      files++;
      const rows = pocInGithubRows(parseJsonDocument(doc), cveId, doc.path);
      for (const row of rows) sink.emit('exploit', row);
      records += rows.length;
      progress.tick(rows.length);
    }
    return { files, records };
  },
};
