/**
 * Microsoft MSRC CVRF v3 JSON (one document per monthly release, `msrc/*.json`) →
 * `vendor_advisory` (vendor `microsoft`, id `2024-Jan`) and `vendor_advisory_cve`.
 *
 * Microsoft publishes no CVSS-free severity elsewhere, and its "Exploited:Yes" flag is one of
 * the `svc_kev` signals (DESIGN §5), so both are read with their exact text as evidence.
 * Numeric codes follow CVRF 1.2 plus Microsoft's Threat Type 3 (= severity).
 */
import { RawFormatError } from '../../lib/errors.ts';
import type { VendorAdvisoryCveRow, VendorAdvisoryRow } from '../stage/tables.ts';
import { documentSelection, parseJsonDocument, readDocuments } from '../raw/documents.ts';
import { cvssBaseScore, cvssVersionOf, isObject, normalizeCveId, normalizeCweId, optionalCvssScore, servableCvssVector, optionalTimestamp, servableAdvisoryId, stringOrNull } from './common.ts';
import type { CvssPick, VendorAdvisoryRows } from './csaf.ts';
import type { SourceParser } from './source.ts';
import { higherSeverity, severityFromWord, type VendorSeverity } from './vendor-severity.ts';
import { textOfHtml } from './html-text.ts';

const VENDOR = 'microsoft';

/** CVRF ThreatType: 0 Impact, 1 Exploit Status, 2 Target Set; Microsoft adds 3 = Severity. */
const THREAT_EXPLOIT_STATUS = 1;
const THREAT_SEVERITY = 3;

/** CVRF RemediationType → the CSAF category names used by every other advisory. */
const REMEDIATION_CATEGORIES: Readonly<Record<number, string>> = {
  0: 'workaround',
  1: 'mitigation',
  2: 'vendor_fix',
  3: 'none_available',
  4: 'no_fix_planned',
};

/** CVRF DocumentStatus. */
const STATUSES: Readonly<Record<number, string>> = { 0: 'draft', 1: 'interim', 2: 'final' };

/** CVRF NoteType preference for the advisory text: Summary, Description, General, Details. */
const DESCRIPTION_NOTE_TYPES = [4, 3, 1, 2];

const EXPLOITED_YES = /Exploited\s*:\s*Yes/i;

function objectsOf(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** CVRF wraps most strings as `{ "Value": "…" }`. */
function valueOf(wrapper: unknown): string | null {
  return isObject(wrapper) ? stringOrNull(wrapper.Value) : null;
}

/** The highest CVSS of a CVE's score sets; a Vector or BaseScore that is none is a RawFormatError, as in every parser. */
function highestScoreSet(vulnerability: Record<string, unknown>, cveId: string, file: string, advisoryId: string): CvssPick | null {
  let best: CvssPick | null = null;
  const sets = objectsOf(vulnerability.CVSSScoreSets);
  for (let i = 0; i < sets.length; i++) {
    const set = sets[i]!;
    const vector = servableCvssVector(set.Vector);
    const score = optionalCvssScore(set.BaseScore, `Vulnerability ${cveId}: CVSSScoreSets[${i}].BaseScore`, file, advisoryId) ?? (vector ? cvssBaseScore(vector) : null);
    if (score !== null && (!best || score > best.score)) best = { score, vector, version: vector ? cvssVersionOf(vector) : null };
  }
  return best;
}

/** Severity is stated per product: the CVE's band is the highest over its products. */
function severityOf(vulnerability: Record<string, unknown>): VendorSeverity | null {
  let best: VendorSeverity | null = null;
  for (const t of objectsOf(vulnerability.Threats)) {
    if (t.Type === THREAT_SEVERITY) best = higherSeverity(best, severityFromWord(VENDOR, valueOf(t.Description)));
  }
  return best;
}

/** The whole exploit-status text (`Publicly Disclosed:No;Exploited:Yes;…`) when it says Yes. */
function exploitedEvidence(vulnerability: Record<string, unknown>): string | null {
  for (const t of objectsOf(vulnerability.Threats)) {
    const text = valueOf(t.Description);
    if (t.Type === THREAT_EXPLOIT_STATUS && text && EXPLOITED_YES.test(text)) return text;
  }
  return null;
}

/** The `/updates` listing (`{"value":[{ID, CvrfUrl, …}]}`) a fetcher may keep beside the documents. */
function isUpdatesListing(json: Record<string, unknown>): boolean {
  return Array.isArray(json.value) && !('DocumentTracking' in json);
}

/**
 * Parses one CVRF document; null for the updates listing. Throws RawFormatError naming the
 * file and the record.
 */
export function parseMsrcDocument(json: unknown, file: string): VendorAdvisoryRows | null {
  if (!isObject(json)) throw new RawFormatError(file, undefined, 'an MSRC CVRF document must be a JSON object');
  if (isUpdatesListing(json)) return null;
  const tracking = isObject(json.DocumentTracking) ? json.DocumentTracking : {};
  const identification = isObject(tracking.Identification) ? tracking.Identification : {};
  const id = valueOf(identification.ID)?.trim();
  if (!id) throw new RawFormatError(file, valueOf(json.DocumentTitle) ?? undefined, 'CVRF document has no DocumentTracking.Identification.ID.Value');
  const advisoryId = servableAdvisoryId(id, 'DocumentTracking.Identification.ID.Value', file);
  if (json.Vulnerability !== undefined && !Array.isArray(json.Vulnerability)) {
    throw new RawFormatError(file, advisoryId, '"Vulnerability" is not an array');
  }

  const cves: VendorAdvisoryCveRow[] = [];
  const remediations: VendorAdvisoryRow['remediations'] = [];
  const seenRemediations = new Set<string>();
  let docCvss: CvssPick | null = null;
  let docSeverity: VendorSeverity | null = null;

  for (const v of objectsOf(json.Vulnerability)) {
    for (const r of objectsOf(v.Remediations)) {
      const category = typeof r.Type === 'number' ? REMEDIATION_CATEGORIES[r.Type] ?? 'other' : 'other';
      const rem = { category, details: valueOf(r.Description), url: stringOrNull(r.URL) };
      const key = `${rem.category}\u0000${rem.details}\u0000${rem.url}`;
      if (!seenRemediations.has(key)) {
        seenRemediations.add(key);
        remediations.push(rem);
      }
    }
    // The CVE field also carries Microsoft's own advisories (`ADV990001`): no CVE, no link,
    // and no part in the release's rating either.
    const cveId = normalizeCveId(v.CVE);
    if (!cveId) continue;
    const cvss = highestScoreSet(v, cveId, file, advisoryId);
    const severity = severityOf(v);
    docCvss = cvss && (!docCvss || cvss.score > docCvss.score) ? cvss : docCvss;
    docSeverity = higherSeverity(docSeverity, severity);
    const exploited = exploitedEvidence(v);
    cves.push({
      vendor: VENDOR,
      advisory_id: advisoryId,
      cve_id: cveId,
      vendor_severity: severity?.band ?? null,
      vendor_severity_source: severity?.source ?? null,
      vendor_severity_evidence: severity?.evidence ?? null,
      cvss_score: cvss?.score ?? null,
      cvss_vector: cvss?.vector ?? null,
      cvss_version: cvss?.version ?? null,
      exploited: exploited !== null,
      exploited_evidence: exploited,
      cwe_id: normalizeCweId(objectsOf(v.CWE)[0]?.ID),
      file,
    });
  }

  const productTree = isObject(json.ProductTree) ? json.ProductTree : {};
  const products = [...new Set(objectsOf(productTree.FullProductName).map((p) => stringOrNull(p.Value)).filter((n): n is string => n !== null))];
  const notes = objectsOf(json.DocumentNotes);
  let description: string | null = null;
  for (const type of DESCRIPTION_NOTE_TYPES) {
    const html = stringOrNull(notes.find((n) => n.Type === type && typeof n.Value === 'string')?.Value);
    description = html === null ? null : textOfHtml(html) || null;
    if (description) break;
  }
  const references: VendorAdvisoryRow['references'] = [];
  for (const r of objectsOf(json.DocumentReferences)) {
    const url = stringOrNull(r.URL);
    if (url) references.push({ url, summary: valueOf(r.Description), category: r.Type === 1 ? 'self' : 'external' });
  }

  const advisory: VendorAdvisoryRow = {
    vendor: VENDOR,
    advisory_id: advisoryId,
    title: valueOf(json.DocumentTitle),
    description,
    publisher: 'Microsoft',
    category: valueOf(json.DocumentType),
    tlp: null,
    status: typeof tracking.Status === 'number' ? STATUSES[tracking.Status] ?? null : stringOrNull(tracking.Status),
    version: stringOrNull(tracking.Version),
    published: optionalTimestamp(tracking.InitialReleaseDate, 'DocumentTracking.InitialReleaseDate', file, advisoryId),
    modified: optionalTimestamp(tracking.CurrentReleaseDate, 'DocumentTracking.CurrentReleaseDate', file, advisoryId),
    aggregate_severity: null,
    aggregate_severity_namespace: null,
    // The release as a whole is rated by its most severe CVE, like its CVSS.
    vendor_severity: docSeverity?.band ?? null,
    vendor_severity_source: docSeverity?.source ?? null,
    vendor_severity_evidence: docSeverity?.evidence ?? null,
    cvss_score: docCvss?.score ?? null,
    cvss_vector: docCvss?.vector ?? null,
    products,
    remediations,
    references,
    cve_ids: [...new Set(cves.map((c) => c.cve_id))],
    url: references.find((r) => r.category === 'self')?.url ?? `https://api.msrc.microsoft.com/cvrf/v3.0/cvrf/${advisoryId}`,
    file,
  };
  return { advisory, cves };
}

/** File endings this parser reads (readDocuments). */
const ENDINGS = ['.json'];

export const msrcParser: SourceParser = {
  key: 'msrc',
  reads: documentSelection(ENDINGS),
  async stage(dir, sink, progress) {
    let files = 0;
    let records = 0;
    for await (const doc of readDocuments(dir, { endings: ENDINGS })) {
      files++;
      const rows = parseMsrcDocument(parseJsonDocument(doc), doc.path);
      if (!rows) continue;
      sink.emit('vendor_advisory', rows.advisory);
      for (const c of rows.cves) sink.emit('vendor_advisory_cve', c);
      records++;
      progress.tick();
    }
    return { files, records };
  },
};
