/**
 * OSV records (GitHub Security Advisories, Go vulndb, Ubuntu, any OSV.dev database) →
 * `osv_advisory`, `osv_package` (one per `affected[]` entry) and `osv_range` (one per branch).
 *
 * Ranges are kept as branches rather than evaluated: GHSA repeats a package once per fixed
 * branch while Go puts several introduced/fixed pairs in one range, and SQL needs both shapes
 * as the same rows.
 */
import { RawFormatError } from '../../lib/errors.ts';
import { orderFor } from '../../lib/versions/ecosystems.ts';
import { VersionSyntaxError, type VersionOrder } from '../../lib/versions/scheme.ts';
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
      rangeBranches(events, orderFor(ecosystem, type)).forEach((branch, branchIndex) => {
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

/** A bound that bounds nothing: `0` (introduced: from the first version) or `*` (limit: none). */
const UNBOUNDED = new Set(['0', '*']);

/**
 * The events in the order the OSV schema evaluates them (its IncludedInRanges walks
 * `sorted(range.events)`): by version in the range's order, `0` first, record order kept
 * between equal versions. Null when the range has no version order (GIT) or an event is no
 * version there: such a range is read in record order.
 */
function sortedEvents(events: RangeEvent[], order: VersionOrder | null): RangeEvent[] | null {
  if (order === null) return null;
  const compare = (a: RangeEvent, b: RangeEvent) => {
    if (a.value === b.value) return 0;
    if (UNBOUNDED.has(a.value)) return -1;
    if (UNBOUNDED.has(b.value)) return 1;
    return order.compare(a.value, b.value);
  };
  try {
    return events.filter((e) => e.kind !== 'limit').sort(compare);
  } catch (err) {
    if (err instanceof VersionSyntaxError) return null;
    throw err;
  }
}

/**
 * The range's limit: the schema's BeforeLimits holds a version below any `limit` event, so with
 * several the greatest bounds (`*`, no limit, above all); the first one when they cannot be
 * ordered.
 */
function rangeLimit(events: RangeEvent[], order: VersionOrder | null): string | null {
  const limits = events.filter((e) => e.kind === 'limit').map((e) => e.value);
  if (limits.length <= 1 || order === null) return limits[0] ?? null;
  if (limits.includes('*')) return '*';
  try {
    return limits.reduce((greatest, limit) => (order.compare(limit, greatest) > 0 ? limit : greatest));
  } catch (err) {
    if (err instanceof VersionSyntaxError) return limits[0]!;
    throw err;
  }
}

/**
 * Pairs a range's events into branches, each an interval of affected versions. With a version
 * order the events are walked sorted, as the schema evaluates them: `introduced` opens a
 * branch (another one while it is open adds nothing: those versions are affected already), the
 * next `fixed`/`last_affected` closes it, and a closing event with nothing open changes nothing
 * — so the branches hold exactly the versions the schema's walk finds affected. Without an
 * order (GIT, or a bound that is no version) they are walked in record order, and an
 * `introduced` while a branch is open leaves that branch open-ended. A range with no
 * `introduced` at all (not valid OSV, but seen in converted data) keeps each closing event as a
 * branch with `introduced` null rather than losing it. Every branch carries the range's limit.
 */
export function rangeBranches(events: RangeEvent[], order: VersionOrder | null = null): Branch[] {
  const sorted = sortedEvents(events, order);
  const hasIntroduced = events.some((e) => e.kind === 'introduced');
  const branches: Branch[] = [];
  let open: Branch | null = null;
  for (const { kind, value } of sorted ?? events) {
    if (kind === 'limit') continue;
    if (kind === 'introduced') {
      if (open && sorted) continue;
      if (open) branches.push(open);
      open = { introduced: value, fixed: null, last_affected: null, limit: null };
    } else if (open || !sorted || !hasIntroduced) {
      const closed: Branch = open ?? { introduced: null, fixed: null, last_affected: null, limit: null };
      closed[kind] = value;
      branches.push(closed);
      open = null;
    }
  }
  if (open) branches.push(open);
  const limit = rangeLimit(events, sorted ? order : null);
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
