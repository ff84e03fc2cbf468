/**
 * CSAF 2.0 (and 2.1) vendor advisories → `vendor_advisory` (one per document) and
 * `vendor_advisory_cve` (one per vulnerability naming a CVE).
 *
 * Documents live under `csaf/<vendor>/…`; the folder name is the vendor slug. Provider
 * listings that sit beside them (provider-metadata.json, ROLIE feeds, aggregator.json) are
 * recognised by shape and skipped.
 */
import { relative, sep } from 'node:path';
import { parse as parseDomain } from 'tldts';
import { ADVISORY_VENDOR, ADVISORY_VENDOR_MESSAGE } from '../../lib/advisory-keys.ts';
import { quoted, RawFormatError } from '../../lib/errors.ts';
import type { VendorAdvisoryCveRow, VendorAdvisoryRow } from '../stage/tables.ts';
import { documentSelection, parseJsonDocument, readDocuments } from '../raw/documents.ts';
import { cvssBaseScore, cvssVersionOf, isObject, normalizeCveId, normalizeCweId, optionalCvssScore, servableCvssVector, optionalText, optionalTimestamp, servableAdvisoryId, stringOrNull } from './common.ts';
import { AFFECTED, ANY_STATUS, FIXED, productIdsIn, productNames } from './csaf-products.ts';
import type { SourceParser } from './source.ts';
import { higherSeverity, severityFromProse, severityFromWord, severityTaxonomy, type VendorSeverity } from './vendor-severity.ts';

export interface VendorAdvisoryRows {
  advisory: VendorAdvisoryRow;
  cves: VendorAdvisoryCveRow[];
}

export interface CvssPick {
  score: number;
  vector: string | null;
  version: string | null;
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function objectsOf(value: unknown): Record<string, unknown>[] {
  return arrayOf(value).filter(isObject);
}

/**
 * What a JSON file in a CSAF folder is. `listing`: provider metadata (`metadata_version` +
 * `canonical_url`/`distributions`), a ROLIE feed (`feed`), ROLIE service/category documents,
 * an aggregator list (`aggregator`). `csaf`: has a `document` object that claims CSAF.
 */
export function csafJsonKind(json: unknown): 'csaf' | 'listing' | 'other' {
  if (!isObject(json)) return 'other';
  const doc = json.document;
  if (isObject(doc) && ('csaf_version' in doc || 'tracking' in doc)) return 'csaf';
  if ('metadata_version' in json && ('canonical_url' in json || 'distributions' in json)) return 'listing';
  if (isObject(json.feed) || isObject(json.service) || isObject(json.categories)) return 'listing';
  if (isObject(json.aggregator) && ('csaf_providers' in json || 'csaf_publishers' in json)) return 'listing';
  return 'other';
}

/**
 * The vendor slug of a document: the first folder below the source folder
 * (`csaf/redhat/2024/x.json`, `csaf/redhat/all.zip!2024/x.json` → `redhat`). Null when the
 * file sits directly in the source folder.
 */
export function csafVendorOf(file: string, sourceDir: string): string | null {
  const rel = relative(sourceDir, file).split(sep).join('/');
  const parts = rel.split('/');
  const first = parts[0];
  if (parts.length < 2 || !first || first === '..' || first.includes('!')) return null;
  return first.toLowerCase();
}

/** Name words that say what the team is, not whose it is ("Product Security Team"). */
const GENERIC_NAME_WORDS = new Set(['the', 'product', 'products', 'security', 'psirt', 'cert', 'csirt', 'productcert', 'team', 'incident', 'response', 'center', 'centre', 'advisory', 'advisories', 'vendor']);

/** Does `label` read as the publisher's name: consecutive words run together, or its initials? */
function nameSays(label: string, name: string): boolean {
  const words = name.toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '').match(/[a-z0-9]+/g) ?? [];
  for (let i = 0; i < words.length; i++) {
    let run = '';
    for (let j = i; j < words.length && run.length < label.length; j++) {
      run += words[j];
      if (run === label) return true;
    }
  }
  // Initials of the capitalised words: "Bundesamt für Sicherheit in der Informationstechnik" → bsi.
  const initials = (name.match(/\p{Lu}[\p{L}\p{N}]*/gu) ?? []).map((w) => w[0]!.toLowerCase()).join('');
  return initials.length > 1 && initials === label;
}

/**
 * The vendor slug a document names itself, for documents outside a vendor folder (a mirror or
 * a download of mixed providers), from `document.publisher`. The candidates are the labels of
 * the namespace host, registrable domain first (Public Suffix List, tldts: `psirt.cisco.com` →
 * `cisco`, `www.cisa.gov` → `cisa`), then the subdomain labels (`www.bsi.bund.de` → `bund`,
 * `bsi`); the first one the publisher's name confirms wins (`redhat` = "Red Hat …", `bsi` =
 * the initials of "Bundesamt für Sicherheit in der Informationstechnik"). A name that confirms
 * none gives its own first word when it is not a generic one ("Fortinet PSIRT" at
 * `www.fortiguard.com` → `fortinet`); without a usable name, the registrable domain's label.
 */
export function csafVendorFromPublisher(json: unknown): string | null {
  if (!isObject(json) || !isObject(json.document) || !isObject(json.document.publisher)) return null;
  const publisher = json.document.publisher;
  const name = stringOrNull(publisher.name) ?? '';
  const candidates: string[] = [];
  const namespace = stringOrNull(publisher.namespace);
  if (namespace) {
    let host: string | null = null;
    try {
      host = new URL(namespace).hostname.toLowerCase();
    } catch {
      // not a URL: the name decides
    }
    const parsed = host ? parseDomain(host) : null;
    if (parsed && !parsed.isIp) {
      if (parsed.domainWithoutSuffix) candidates.push(parsed.domainWithoutSuffix);
      // `www`, `psirt`, `security` … name a service, never a vendor.
      for (const label of (parsed.subdomain ?? '').split('.').reverse()) if (label && label !== 'www' && !GENERIC_NAME_WORDS.has(label)) candidates.push(label);
      if (!parsed.domainWithoutSuffix && parsed.hostname) candidates.push(parsed.hostname.split('.')[0]!);
    }
  }
  const slugs = candidates.filter((c) => /^[a-z0-9-]+$/.test(c));
  const confirmed = slugs.find((c) => nameSays(c, name));
  if (confirmed) return confirmed;
  const word = (name.toLowerCase().match(/[a-z0-9]+/g) ?? []).find((w) => !GENERIC_NAME_WORDS.has(w));
  return word ?? slugs[0] ?? null;
}

/** Where a CVSS object sits, for the refusal of its vector. */
interface CvssPlace {
  file: string;
  advisoryId: string;
  where: string;
}

/**
 * One CVSS object (`cvss_v3`, `cvss_v4`, `cvss_v2`): its base score (computed if omitted). A
 * score that is no score is a RawFormatError; a vector that is no CVSS vector is dropped, as in
 * every parser (servableCvssVector).
 */
function readCvss(value: unknown, place: CvssPlace): CvssPick | null {
  if (!isObject(value)) return null;
  const vector = servableCvssVector(value.vectorString);
  const score = optionalCvssScore(value.baseScore, `${place.where}.baseScore`, place.file, place.advisoryId) ?? (vector ? cvssBaseScore(vector) : null);
  if (score === null) return null;
  const version = stringOrNull(value.version) ?? (vector ? cvssVersionOf(vector) : null);
  return { score, vector, version };
}

function higherCvss(a: CvssPick | null, b: CvssPick | null): CvssPick | null {
  if (!a) return b;
  if (!b) return a;
  return b.score > a.score ? b : a;
}

/**
 * The highest CVSS of one vulnerability: v3/v4 from `scores[]` (2.0) or `metrics[].content`
 * (2.1); v2 only when there is no v3/v4, since its scale is not comparable.
 */
export function vulnerabilityCvss(vulnerability: Record<string, unknown>, file: string, advisoryId: string, where: string): CvssPick | null {
  let modern: CvssPick | null = null;
  let legacy: CvssPick | null = null;
  const holders = [
    ...objectsOf(vulnerability.scores).map((h, i) => [h, `${where}.scores[${i}]`] as const),
    ...objectsOf(vulnerability.metrics).map((m, i) => [m.content, `${where}.metrics[${i}].content`] as const),
  ];
  for (const [h, at] of holders) {
    if (!isObject(h)) continue;
    for (const key of ['cvss_v3', 'cvss_v4'] as const) modern = higherCvss(modern, readCvss(h[key], { file, advisoryId, where: `${at}.${key}` }));
    legacy = higherCvss(legacy, readCvss(h.cvss_v2, { file, advisoryId, where: `${at}.cvss_v2` }));
  }
  return modern ?? legacy;
}

/** The vendor's per-CVE rating: the highest `threats[category=impact]` that is a severity word. */
function threatSeverity(vulnerability: Record<string, unknown>, taxonomy: string): VendorSeverity | null {
  let best: VendorSeverity | null = null;
  for (const t of objectsOf(vulnerability.threats)) {
    if (t.category === 'impact') best = higherSeverity(best, severityFromWord(taxonomy, t.details));
  }
  return best;
}

const EXPLOITED_YES = /Exploited\s*:\s*Yes/i;

/** `threats[category=exploit_status]` saying `Exploited:Yes` (Microsoft's CSAF spelling). */
function exploitedEvidence(vulnerability: Record<string, unknown>): string | null {
  for (const t of objectsOf(vulnerability.threats)) {
    if (t.category === 'exploit_status' && typeof t.details === 'string' && EXPLOITED_YES.test(t.details)) return t.details;
  }
  return null;
}

/**
 * The text of the first note of `categories` (in that order of preference). A note that only
 * repeats `title` says nothing the title does not: SUSE's summary note ("Title of the patch")
 * is its document.title word for word, and its description note says what the update fixes.
 */
function noteText(notes: unknown, categories: string[], title: string | null = null): string | null {
  const list = objectsOf(notes);
  const repeatsTitle = (text: string) => title !== null && text.trim() === title.trim();
  for (const category of categories) {
    const hit = list.find((n) => n.category === category && typeof n.text === 'string' && !repeatsTitle(n.text));
    if (hit) return hit.text as string;
  }
  return null;
}

/**
 * The description of a document without summary or description notes of its own (they are
 * optional in CSAF 2.0: BSI's BSI-2022-0001 has none) that is about one vulnerability: that
 * vulnerability's description (else summary) note says what the advisory is about. With several
 * vulnerabilities none of them describes the whole advisory, so there is none.
 */
function soleVulnerabilityText(vulnerabilities: unknown[]): string | null {
  const described = vulnerabilities.filter(isObject);
  return described.length === 1 ? noteText(described[0]!.notes, ['description', 'summary']) : null;
}

/**
 * Parses one CSAF document. `vendor` is the folder slug. Returns null for a listing file;
 * throws RawFormatError for anything else that is not a readable CSAF document.
 */
export function parseCsafDocument(json: unknown, file: string, vendor: string): VendorAdvisoryRows | null {
  const kind = csafJsonKind(json);
  if (kind === 'listing') return null;
  if (kind === 'other' || !isObject(json)) {
    throw new RawFormatError(file, undefined, 'neither a CSAF document (no document.csaf_version) nor a CSAF listing (provider-metadata, ROLIE feed, aggregator)');
  }
  const doc = json.document as Record<string, unknown>;
  const tracking = isObject(doc.tracking) ? doc.tracking : {};
  const trackingId = typeof tracking.id === 'string' ? tracking.id.trim() : '';
  if (trackingId === '') {
    throw new RawFormatError(file, stringOrNull(doc.title) ?? undefined, 'CSAF document has no document.tracking.id');
  }
  const advisoryId = servableAdvisoryId(trackingId, 'document.tracking.id', file);
  if (json.vulnerabilities !== undefined && !Array.isArray(json.vulnerabilities)) {
    throw new RawFormatError(file, advisoryId, '"vulnerabilities" is not an array');
  }

  const publisher = isObject(doc.publisher) ? doc.publisher : {};
  const aggregate = isObject(doc.aggregate_severity) ? doc.aggregate_severity : {};
  const distribution = isObject(doc.distribution) ? doc.distribution : {};
  const tlp = isObject(distribution.tlp) ? stringOrNull(distribution.tlp.label) : null;
  const taxonomy = severityTaxonomy({
    vendor,
    severityNamespace: stringOrNull(aggregate.namespace),
    publisherNamespace: stringOrNull(publisher.namespace),
  });

  // What the document states for itself: a rating sentence in its notes, else the aggregate.
  let stated: VendorSeverity | null = null;
  for (const n of objectsOf(doc.notes)) if ((stated = severityFromProse(n.text))) break;
  stated ??= severityFromWord(taxonomy, aggregate.text);

  const names = productNames(json.product_tree);
  const affectedIds = new Set<string>();
  const fixedIds = new Set<string>();
  let statusGiven = false;
  const remediations: VendorAdvisoryRow['remediations'] = [];
  const seenRemediations = new Set<string>();
  const cves: VendorAdvisoryCveRow[] = [];
  let docCvss: CvssPick | null = null;
  let highestThreat: VendorSeverity | null = null;

  const vulnerabilities = arrayOf(json.vulnerabilities);
  for (let index = 0; index < vulnerabilities.length; index++) {
    const v = vulnerabilities[index];
    if (!isObject(v)) continue;
    for (const id of productIdsIn(v, AFFECTED)) affectedIds.add(id);
    for (const id of productIdsIn(v, FIXED)) fixedIds.add(id);
    if (productIdsIn(v, ANY_STATUS).length > 0) statusGiven = true;
    for (const r of objectsOf(v.remediations)) {
      if (typeof r.category !== 'string') continue;
      const rem = { category: r.category, details: stringOrNull(r.details), url: stringOrNull(r.url) };
      const key = `${rem.category}\u0000${rem.details}\u0000${rem.url}`;
      if (!seenRemediations.has(key)) {
        seenRemediations.add(key);
        remediations.push(rem);
      }
    }
    const cvss = vulnerabilityCvss(v, file, advisoryId, `vulnerabilities[${index}]`);
    docCvss = higherCvss(docCvss, cvss);
    const threat = threatSeverity(v, taxonomy);
    highestThreat = higherSeverity(highestThreat, threat);
    // Vendors sometimes put placeholders (`CVE-2024-XXXX`) here: no link rather than no build.
    const cveId = normalizeCveId(v.cve);
    if (!cveId) continue;
    const severity = threat ?? stated;
    const exploited = exploitedEvidence(v);
    const cwe = isObject(v.cwe) ? v.cwe : objectsOf(v.cwes)[0];
    cves.push({
      vendor,
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
      cwe_id: normalizeCweId(cwe?.id),
      file,
    });
  }

  // The products the CVEs affect. A fixed product is a version that holds the fix (BSI's
  // "Converter 1.0.0-rc2" beside the five affected versions before it), never an affected one;
  // a document that marks nothing affected but names what it fixes (a Red Hat advisory lists
  // only `fixed`: the product streams it ships fixes for) names its products so. Informational
  // documents give no product a status: then every product the tree declares. A VEX that says
  // only known_not_affected or under_investigation names no product: its tree is the products it
  // is NOT (or not known to be) affecting, and listing them said the opposite.
  const productIds = affectedIds.size > 0 ? affectedIds : fixedIds;
  let products = [...productIds].map((id) => names.get(id)).filter((n): n is string => n !== undefined);
  if (productIds.size === 0 && !statusGiven) products = [...names.values()];
  products = [...new Set(products)];

  const references: VendorAdvisoryRow['references'] = [];
  for (const r of objectsOf(doc.references)) {
    if (typeof r.url === 'string') references.push({ url: r.url, summary: stringOrNull(r.summary), category: stringOrNull(r.category) });
  }
  const severity = stated ?? highestThreat;

  // The text fields CSAF requires as strings: anything else is a broken document.
  const title = optionalText(doc.title, 'document.title', file, advisoryId);
  const advisory: VendorAdvisoryRow = {
    vendor,
    advisory_id: advisoryId,
    title,
    description: noteText(doc.notes, ['summary', 'description'], title) ?? soleVulnerabilityText(vulnerabilities),
    publisher: optionalText(publisher.name, 'document.publisher.name', file, advisoryId),
    category: optionalText(doc.category, 'document.category', file, advisoryId),
    tlp,
    status: optionalText(tracking.status, 'document.tracking.status', file, advisoryId),
    version: typeof tracking.version === 'number' ? String(tracking.version) : stringOrNull(tracking.version),
    published: optionalTimestamp(tracking.initial_release_date, 'document.tracking.initial_release_date', file, advisoryId),
    modified: optionalTimestamp(tracking.current_release_date, 'document.tracking.current_release_date', file, advisoryId),
    aggregate_severity: stringOrNull(aggregate.text),
    aggregate_severity_namespace: stringOrNull(aggregate.namespace),
    vendor_severity: severity?.band ?? null,
    vendor_severity_source: severity?.source ?? null,
    vendor_severity_evidence: severity?.evidence ?? null,
    cvss_score: docCvss?.score ?? null,
    cvss_vector: docCvss?.vector ?? null,
    products,
    remediations,
    references,
    cve_ids: [...new Set(cves.map((c) => c.cve_id))],
    url: references.find((r) => r.category === 'self')?.url ?? null,
    file,
  };
  return { advisory, cves };
}

/** File endings this parser reads (readDocuments). */
const ENDINGS = ['.json'];

export const csafParser: SourceParser = {
  key: 'csaf',
  reads: documentSelection(ENDINGS),
  async stage(dir, sink, progress) {
    let files = 0;
    let records = 0;
    for await (const doc of readDocuments(dir, { endings: ENDINGS })) {
      files++;
      const json = parseJsonDocument(doc);
      // Listings (provider metadata, ROLIE feeds) need no vendor: parseCsafDocument skips them.
      const isCsaf = isObject(json) && isObject(json.document);
      const vendor = csafVendorOf(doc.path, dir) ?? csafVendorFromPublisher(json);
      if (!vendor && isCsaf) throw new RawFormatError(doc.path, undefined, 'no vendor: put CSAF files in csaf/<vendor>/…, or the document must name its publisher');
      // The vendor is half of the advisory's address in the API: one it refuses links nowhere.
      if (vendor && isCsaf && !ADVISORY_VENDOR.test(vendor)) {
        throw new RawFormatError(doc.path, undefined, `vendor ${quoted(vendor)} (the folder below csaf/) cannot be served by the API: ${ADVISORY_VENDOR_MESSAGE}`);
      }
      const rows = parseCsafDocument(json, doc.path, vendor ?? '');
      if (!rows) continue;
      sink.emit('vendor_advisory', rows.advisory);
      for (const c of rows.cves) sink.emit('vendor_advisory_cve', c);
      records++;
      progress.tick();
    }
    return { files, records };
  },
};
