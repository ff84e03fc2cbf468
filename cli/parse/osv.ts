/**
 * OSV records (GitHub Security Advisories, Go vulndb, Ubuntu, any OSV.dev database) →
 * `osv_advisory`, `osv_package` (one per `affected[]` entry) and `osv_range` (one per branch).
 *
 * Ranges are kept as branches rather than evaluated: GHSA repeats a package once per fixed
 * branch while Go puts several introduced/fixed pairs in one range, and SQL needs both shapes
 * as the same rows.
 */
import { RawFormatError } from '../../lib/errors.ts';
import type { OsvAdvisoryRow, OsvPackageRow, OsvRangeRow } from '../stage/tables.ts';
import { documentSelection, parseJsonDocument, readDocuments } from '../raw/documents.ts';
import { cvssBaseScore, isObject, normalizeCveId, normalizeCweId, servableCvssVector, optionalTimestamp, stringOrNull } from './common.ts';
import type { SourceParser } from './source.ts';

export interface OsvRows {
  advisory: OsvAdvisoryRow;
  packages: OsvPackageRow[];
  ranges: OsvRangeRow[];
}

const EVENT_KINDS = ['introduced', 'fixed', 'last_affected', 'limit'] as const;
type EventKind = (typeof EVENT_KINDS)[number];

/** Per-distribution records about one CVE (`UBUNTU-CVE-2021-3782`, `DEBIAN-CVE-…`). */
const DISTRO_CVE_ID = /^[A-Z][A-Z0-9]*-(CVE-\d{4}-\d{4,})$/i;

function distroCve(id: unknown): string | null {
  if (typeof id !== 'string') return null;
  const m = DISTRO_CVE_ID.exec(id.trim());
  return m ? normalizeCveId(m[1]) : null;
}

/**
 * The CVEs a record is about:
 * - CVE ids in `aliases` (aliases name the same vulnerability);
 * - the record's own id when it is a CVE, or a distro-CVE id (`UBUNTU-CVE-…`);
 * - `upstream[]` entries that are CVEs or distro-CVE ids (the record derives from them: a USN
 *   lists the `UBUNTU-CVE-…` records it fixes);
 * - `related[]` entries only when they are distro-CVE ids: a plain CVE in `related` is, by
 *   the OSV schema, a *different* vulnerability, so it is not this record's CVE.
 */
export function osvCveIds(record: Record<string, unknown>): string[] {
  const out = new Set<string>();
  const add = (id: string | null) => id && out.add(id);
  for (const alias of arrayOf(record.aliases)) add(normalizeCveId(alias));
  add(normalizeCveId(record.id) ?? distroCve(record.id));
  for (const up of arrayOf(record.upstream)) add(normalizeCveId(up) ?? distroCve(up));
  for (const rel of arrayOf(record.related)) add(distroCve(rel));
  return [...out];
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function stringsOf(value: unknown): string[] {
  return arrayOf(value).filter((v): v is string => typeof v === 'string');
}

/**
 * OSV timestamps. Go vulndb's `0001-01-01T00:00:00Z` placeholder means "not known": it is no
 * date, so it is absent rather than refused as a year outside 1000–9999.
 */
function osvTimestamp(record: Record<string, unknown>, key: string, file: string, id: string): string | null {
  const value = record[key];
  if (typeof value === 'string' && value.startsWith('0001-01-01T00:00:00')) return null;
  return optionalTimestamp(value, key, file, id);
}

/** `GHSA-…` → ghsa; otherwise the id prefix lower-cased (`GO-…` → go, `USN-…` → usn). */
export function osvDatabase(id: string): string {
  const prefix = id.split('-', 1)[0] ?? id;
  return prefix.toLowerCase();
}

function firstVector(severity: unknown, type: string): string | null {
  for (const s of arrayOf(severity)) {
    if (isObject(s) && s.type === type && typeof s.score === 'string' && s.score.trim() !== '') return s.score.trim();
  }
  return null;
}

/**
 * The advisory's own page: a database-declared URL (Go's pkg.go.dev page), GitHub's advisory
 * page for GHSA ids, an ADVISORY reference naming the id, then any ADVISORY reference, then
 * the first reference. (GHSA's first ADVISORY reference is usually NVD's page, not its own.)
 */
function advisoryUrl(id: string, databaseSpecific: Record<string, unknown>, refs: OsvAdvisoryRow['references']): string | null {
  const declared = stringOrNull(databaseSpecific.url);
  if (declared) return declared;
  if (id.startsWith('GHSA-')) return `https://github.com/advisories/${id}`;
  const advisories = refs.filter((r) => r.type === 'ADVISORY');
  return advisories.find((r) => r.url.includes(id))?.url ?? advisories[0]?.url ?? refs[0]?.url ?? null;
}

/** Parses one OSV record into its staging rows. Throws RawFormatError naming file and record. */
export function parseOsvRecord(record: unknown, file: string): OsvRows {
  if (!isObject(record)) throw new RawFormatError(file, undefined, 'an OSV record must be a JSON object');
  const id = typeof record.id === 'string' ? record.id.trim() : '';
  if (id === '') throw new RawFormatError(file, undefined, 'OSV record has no "id"');
  const dbSpecific = isObject(record.database_specific) ? record.database_specific : {};

  const references: OsvAdvisoryRow['references'] = [];
  for (const r of arrayOf(record.references)) {
    if (isObject(r) && typeof r.url === 'string') references.push({ type: stringOrNull(r.type), url: r.url });
  }

  // Top-level severity is the norm; the schema also allows it per affected entry instead.
  let severity: unknown = record.severity;
  if (arrayOf(severity).length === 0) {
    severity = arrayOf(record.affected).find((a) => isObject(a) && arrayOf(a.severity).length > 0);
    severity = isObject(severity) ? severity.severity : [];
  }
  const v3 = servableCvssVector(firstVector(severity, 'CVSS_V3'));
  const v4 = servableCvssVector(firstVector(severity, 'CVSS_V4'));

  const advisory: OsvAdvisoryRow = {
    advisory_id: id,
    database: osvDatabase(id),
    modified: osvTimestamp(record, 'modified', file, id),
    published: osvTimestamp(record, 'published', file, id),
    withdrawn: osvTimestamp(record, 'withdrawn', file, id),
    summary: stringOrNull(record.summary),
    details: stringOrNull(record.details),
    severity_band: typeof dbSpecific.severity === 'string' ? dbSpecific.severity.trim().toUpperCase() || null : null,
    cvss_v3_vector: v3,
    cvss_v3_score: v3 ? cvssBaseScore(v3) : null,
    cvss_v4_vector: v4,
    cvss_v4_score: v4 ? cvssBaseScore(v4) : null,
    aliases: stringsOf(record.aliases),
    cve_ids: osvCveIds(record),
    cwe_ids: [...new Set(arrayOf(dbSpecific.cwe_ids).map(normalizeCweId).filter((c): c is string => c !== null))],
    github_reviewed: typeof dbSpecific.github_reviewed === 'boolean' ? dbSpecific.github_reviewed : null,
    url: advisoryUrl(id, dbSpecific, references),
    references,
    file,
  };

  const packages: OsvPackageRow[] = [];
  const ranges: OsvRangeRow[] = [];
  arrayOf(record.affected).forEach((entry, affectedIndex) => {
    const where = `affected[${affectedIndex}]`;
    if (!isObject(entry)) throw new RawFormatError(file, id, `${where} is not an object`);
    const entryRanges = arrayOf(entry.ranges);
    const pkg = isObject(entry.package) ? entry.package : null;
    // OSV.dev's CVE-… records describe a bare git repository and carry no package at all.
    const gitRepo = entryRanges.map((r) => (isObject(r) ? stringOrNull(r.repo) : null)).find((r) => r !== null) ?? null;
    const ecosystem = stringOrNull(pkg?.ecosystem) ?? (gitRepo ? 'GIT' : null);
    const name = stringOrNull(pkg?.name) ?? gitRepo;
    if (!ecosystem || !name) throw new RawFormatError(file, id, `${where} has no package ecosystem and name`);
    const entrySpecific = isObject(entry.database_specific) ? entry.database_specific : {};
    packages.push({
      advisory_id: id,
      affected_index: affectedIndex,
      ecosystem,
      package_name: name,
      purl: stringOrNull(pkg?.purl),
      versions: stringsOf(entry.versions),
      last_known_affected_version_range: stringOrNull(entrySpecific.last_known_affected_version_range),
      range_count: entryRanges.length,
      file,
    });
    entryRanges.forEach((range, rangeIndex) => {
      const whereRange = `${where}.ranges[${rangeIndex}]`;
      if (!isObject(range)) throw new RawFormatError(file, id, `${whereRange} is not an object`);
      const type = stringOrNull(range.type);
      if (!type) throw new RawFormatError(file, id, `${whereRange} has no "type"`);
      if (range.events !== undefined && !Array.isArray(range.events)) {
        throw new RawFormatError(file, id, `${whereRange}.events is not an array`);
      }
      const events = arrayOf(range.events).map((ev, i) => readEvent(ev, file, id, `${whereRange}.events[${i}]`));
      rangeBranches(events).forEach((branch, branchIndex) => {
        ranges.push({
          advisory_id: id,
          affected_index: affectedIndex,
          range_index: rangeIndex,
          branch_index: branchIndex,
          range_type: type,
          repo: stringOrNull(range.repo),
          ...branch,
          file,
        });
      });
    });
  });
  return { advisory, packages, ranges };
}

interface RangeEvent {
  kind: EventKind;
  value: string;
}

function readEvent(event: unknown, file: string, id: string, where: string): RangeEvent {
  if (!isObject(event)) throw new RawFormatError(file, id, `${where} is not an object`);
  const keys = Object.keys(event);
  if (keys.length !== 1) {
    throw new RawFormatError(file, id, `${where} must have exactly one key (introduced, fixed, last_affected or limit), found ${keys.length === 0 ? 'none' : keys.join(', ')}`);
  }
  const kind = keys[0] as EventKind;
  if (!EVENT_KINDS.includes(kind)) throw new RawFormatError(file, id, `${where} has unknown event "${kind}"`);
  const value = event[kind];
  if (typeof value !== 'string' || value === '') throw new RawFormatError(file, id, `${where}.${kind} must be a non-empty string`);
  return { kind, value };
}

type Branch = Pick<OsvRangeRow, 'introduced' | 'fixed' | 'last_affected' | 'limit'>;

/**
 * Pairs a range's events into branches, walking them in the record's order: `introduced` opens
 * a branch, the next `fixed`/`last_affected` closes it. An `introduced` while a branch is open
 * leaves that branch open-ended (both ends null). A closing event with no open branch (not
 * valid OSV, but seen in converted data) becomes a branch with `introduced` null rather than
 * being lost. `limit` applies to the whole range, so every branch carries it (the first one
 * when a range has several).
 */
export function rangeBranches(events: RangeEvent[]): Branch[] {
  const branches: Branch[] = [];
  let open: Branch | null = null;
  let limit: string | null = null;
  for (const { kind, value } of events) {
    if (kind === 'limit') {
      limit ??= value;
    } else if (kind === 'introduced') {
      if (open) branches.push(open);
      open = { introduced: value, fixed: null, last_affected: null, limit: null };
    } else {
      const closed: Branch = open ?? { introduced: null, fixed: null, last_affected: null, limit: null };
      closed[kind] = value;
      branches.push(closed);
      open = null;
    }
  }
  if (open) branches.push(open);
  for (const b of branches) b.limit = limit;
  return branches;
}

/** File endings this parser reads (readDocuments). */
const ENDINGS = ['.json'];

export const osvParser: SourceParser = {
  key: 'ghsa',
  reads: documentSelection(ENDINGS),
  async stage(dir, sink, progress) {
    let files = 0;
    let records = 0;
    for await (const doc of readDocuments(dir, { endings: ENDINGS })) {
      files++;
      const rows = parseOsvRecord(parseJsonDocument(doc), doc.path);
      sink.emit('osv_advisory', rows.advisory);
      for (const p of rows.packages) sink.emit('osv_package', p);
      for (const r of rows.ranges) sink.emit('osv_range', r);
      records++;
      progress.tick();
    }
    return { files, records };
  },
};
