/**
 * "Am I affected?": one package (and optionally one version) against the package index. The
 * one implementation behind `GET /packages/…`, the batch and `vulnintel scan`.
 *
 * With a version: every CVE whose ranges (or explicit `versions` list) hold it, with the
 * branches that matched and why; CVEs that cannot be judged are listed apart (GIT-only
 * ranges: `not_comparable`; no range on record, a bound the order cannot read:
 * `undetermined`), never counted as "not affected". Then the upgrade: per distribution release
 * (or the one ecosystem), the smallest `fixed` version above the asked one that holds none of
 * the matches, or a plain statement that no fixed version clears them all.
 */
import { orderFor } from '../versions/ecosystems.ts';
import type { VersionOrder } from '../versions/scheme.ts';
import { extendsKept, keepJson } from '../json-reuse.ts';
import { ecosystemMatches } from './names.ts';
import type { CveRisk, PackageIndex, PackageRow } from './index.ts';
import { branchHolds, judgeBranch, type RangeBranch, type VersionProbe } from './ranges.ts';
import { countBefore, markHeld, RankedProbe, readableSorted, spanTable, type RankedBounds, type RankedPackage } from './ranked.ts';

export interface PackageQuery {
  /** As OSV spells it, possibly with a release (`Debian:12`). */
  ecosystem: string;
  name: string;
  version: string | null;
}

export interface MatchedRange extends RangeBranch {
  why: string;
}

export interface Finding extends CveRisk {
  ecosystem: string;
  package_name: string;
  advisory_ids: string[];
}

export interface AffectedFinding extends Finding {
  matched: MatchedRange[];
  /** The smallest fix of this CVE's own ranges above the version; null: none on record. */
  fixed_in: string | null;
}

/** A CVE of a group of unjudged advisories: its risk figures and the advisories that named the package. */
export type UnjudgedCve = Pick<CveRisk, 'cve_id' | 'service_risk' | 'service_severity' | 'kev' | 'epss_score'> & { advisory_ids: string[] };

/**
 * The advisories of one package spelling (ecosystem with its release, name as the advisory
 * spells it) that could not be judged for one reason, by risk. Grouped: a package can carry a
 * thousand advisories named by CVE records only, all for the same reason, and repeating the
 * reason and the package in each made nine tenths of a batch answer.
 */
export interface UnjudgedGroup {
  reason: string;
  ecosystem: string;
  package_name: string;
  cves: readonly UnjudgedCve[];
}

export interface Upgrade {
  ecosystem: string;
  /** The smallest fixed version that leaves every match behind; null when none does. */
  to: string | null;
  statement: string;
  /** CVEs of the package (not matched at the asked version) whose ranges hold `to`. */
  also_affected_by: string[];
}

export interface VersionAnswer {
  ecosystem: string;
  name: string;
  version: string;
  version_order: string;
  affected: boolean;
  vulnerabilities: AffectedFinding[];
  upgrade: Upgrade[];
  /** Groups by their riskiest CVE (ties: the first row), each group by risk (ties: row order). */
  not_comparable: readonly UnjudgedGroup[];
  undetermined: readonly UnjudgedGroup[];
  /** Advisories of the package whose ranges were read and do not hold the version. */
  not_affected_count: number;
}

export interface PackageAdvisory extends Finding {
  source: string;
  fixed_branches: RangeBranch[] | null;
  versions: string[];
}

export interface ListAnswer {
  ecosystem: string;
  name: string;
  version: null;
  advisories: PackageAdvisory[];
}

/** What the risk order reads (`advisory_ids` where there is no CVE id to break a tie with). */
export type RiskOrderFields = Pick<CveRisk, 'cve_id' | 'service_risk' | 'kev' | 'epss_score'> & { advisory_ids?: readonly string[] };

/**
 * Service risk first, then KEV, then EPSS, then the CVE id; an advisory that names no CVE after
 * the CVEs of equal figures, advisories among themselves by their first id (where a list has
 * them; else a sort's own tie-break, the index's order, decides). The order of every list here.
 */
export function byRisk(a: RiskOrderFields, b: RiskOrderFields): number {
  return b.service_risk - a.service_risk || Number(b.kev) - Number(a.kev) || (b.epss_score ?? -1) - (a.epss_score ?? -1) || byId(a, b);
}

function byId(a: RiskOrderFields, b: RiskOrderFields): number {
  if (a.cve_id !== null && b.cve_id !== null) return a.cve_id < b.cve_id ? -1 : a.cve_id > b.cve_id ? 1 : 0;
  if (a.cve_id !== null || b.cve_id !== null) return a.cve_id === null ? 1 : -1;
  const x = a.advisory_ids?.[0] ?? '';
  const y = b.advisory_ids?.[0] ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
}

/** What names a finding: its CVE, else (an advisory that names no CVE of the snapshot) its advisory. */
export function findingId(f: { cve_id: string | null; advisory_ids: readonly string[] }): string {
  return f.cve_id ?? f.advisory_ids[0] ?? '';
}

/** A row's finding, frozen with its JSON kept: the version-independent head of its vulnerability entries. */
const keptFindings = new WeakMap<PackageRow, Finding>();

function keptFinding(row: PackageRow): Finding {
  let kept = keptFindings.get(row);
  if (!kept) keptFindings.set(row, (kept = keepJson(Object.freeze(finding(row)))));
  return kept;
}

function finding(row: PackageRow): Finding {
  return { ...row.cve, ecosystem: row.ecosystem, package_name: row.package_name, advisory_ids: row.advisory_ids };
}

function rowsAsked(index: PackageIndex, q: PackageQuery): PackageRow[] {
  return index.rowsOf(q.ecosystem, q.name).filter((r) => ecosystemMatches(q.ecosystem, r.ecosystem));
}

// Not "no ranges on record": a CVE record often gives ranges (`affected[].versions`, CPE bounds),
// in version schemes of its own that the service does not compare; no advisory gives any.
const UNRANGED_REASON = 'no advisory version ranges: the package is named by the CVE record only, whose version data is not compared';

/**
 * What of a package does not depend on the version asked, worked out once per package and
 * ecosystem spelling: a package can carry over a thousand rows named by CVE records only
 * (no ranges), undetermined at every version, and sorting and serialising those again for
 * every question was most of an answer's cost.
 */
interface AskedPackage extends RankedPackage {
  /** Rows judged per version (ranges on record), with their position in `rows`. */
  ranged: { row: PackageRow; position: number }[];
  /** The rows without ranges as groups (one per package spelling), each frozen and kept as JSON (lib/json-reuse.ts), with its riskiest row's position. */
  unranged: PlacedGroup[];
  /** The same groups as one frozen list with kept JSON: the whole `undetermined` of most answers. */
  unrangedGroups: readonly UnjudgedGroup[];
  /** Per ecosystem, rows that can hold a version (ranges or an explicit list): the only ones the upgrade search asks. */
  canHold: Map<string, PackageRow[]>;
  /** The package's range bounds ranked in each order, made when first asked (ranked.ts). */
  ranked: Map<VersionOrder, RankedBounds>;
}

/** Per index: bounded, since the ecosystem spelling (a release) is the caller's. */
const ASKED_CACHE_SIZE = 20_000;
const askedCaches = new WeakMap<PackageIndex, Map<string, AskedPackage>>();

function askedPackage(index: PackageIndex, q: PackageQuery): AskedPackage {
  let cache = askedCaches.get(index);
  if (!cache) askedCaches.set(index, (cache = new Map()));
  const key = `${q.ecosystem.toLowerCase()}\u0000${q.name}`;
  let asked = cache.get(key);
  if (asked) return asked;
  const rows = rowsAsked(index, q);
  const ranged: AskedPackage['ranged'] = [];
  const unrangedRows: UnjudgedRow[] = [];
  rows.forEach((row, position) => {
    if (row.fixed_branches !== null) ranged.push({ row, position });
    else unrangedRows.push({ row, reason: UNRANGED_REASON, position });
  });
  const unranged = groupUnjudged(unrangedRows).map(({ group, position }) => ({ group: keepJson(Object.freeze(group)), position }));
  const canHold = new Map<string, PackageRow[]>();
  for (const row of rows) {
    if (row.fixed_branches === null && row.versions.length === 0) continue;
    const list = canHold.get(row.ecosystem);
    if (list) list.push(row);
    else canHold.set(row.ecosystem, [row]);
  }
  const unrangedGroups = keepJson(Object.freeze(unranged.map((e) => e.group)));
  asked = { ranged, unranged, unrangedGroups, canHold, ranked: new Map() };
  if (cache.size >= ASKED_CACHE_SIZE) cache.clear();
  cache.set(key, asked);
  return asked;
}

/** A row that could not be judged, why, and its position in the package's rows. */
interface UnjudgedRow {
  row: PackageRow;
  reason: string;
  position: number;
}

/** A group with the position of its riskiest row (the tie-break between groups of equal risk). */
interface PlacedGroup {
  group: UnjudgedGroup;
  position: number;
}

/** A row's CVE in a group, frozen with its JSON kept (the same row is listed by many answers). */
const keptCves = new WeakMap<PackageRow, UnjudgedCve>();

function unjudgedCve(row: PackageRow): UnjudgedCve {
  let kept = keptCves.get(row);
  if (!kept) {
    const { cve_id, service_risk, service_severity, kev, epss_score } = row.cve;
    keptCves.set(row, (kept = keepJson(Object.freeze({ cve_id, service_risk, service_severity, kev, epss_score, advisory_ids: row.advisory_ids }))));
  }
  return kept;
}

/** Rows grouped by reason and package spelling; each group by risk (ties: row order), the groups by their riskiest row. */
function groupUnjudged(rows: readonly UnjudgedRow[]): PlacedGroup[] {
  const byKey = new Map<string, UnjudgedRow[]>();
  let list: UnjudgedRow[] | undefined;
  let last: UnjudgedRow | undefined;
  for (const r of rows) {
    // Neighbours usually share reason and package: a key is made only when they change.
    if (!last || r.reason !== last.reason || r.row.ecosystem !== last.row.ecosystem || r.row.package_name !== last.row.package_name) {
      const key = `${r.reason}\u0000${r.row.ecosystem}\u0000${r.row.package_name}`;
      list = byKey.get(key);
      if (!list) byKey.set(key, (list = []));
    }
    list!.push(r);
    last = r;
  }
  const groups: PlacedGroup[] = [];
  for (const list of byKey.values()) {
    list.sort((a, b) => byRisk(a.row.cve, b.row.cve) || a.position - b.position);
    const { reason, row } = list[0]!;
    groups.push({ group: { reason, ecosystem: row.ecosystem, package_name: row.package_name, cves: Object.freeze(list.map((r) => unjudgedCve(r.row))) }, position: list[0]!.position });
  }
  return sortGroups(groups);
}

function sortGroups(groups: PlacedGroup[]): PlacedGroup[] {
  return groups.sort((a, b) => byRisk(a.group.cves[0]!, b.group.cves[0]!) || a.position - b.position);
}

/** The package's kept groups (no ranges) and those of the version, in group order. */
function undeterminedGroups(asked: AskedPackage, rows: readonly UnjudgedRow[]): readonly UnjudgedGroup[] {
  if (rows.length === 0) return asked.unrangedGroups;
  return sortGroups([...asked.unranged, ...groupUnjudged(rows)]).map((g) => g.group);
}

type RowVerdict =
  | { kind: 'affected'; matched: MatchedRange[] }
  | { kind: 'not_affected' }
  | { kind: 'not_comparable' | 'undetermined'; reason: string };

/** Every branch and the `versions` list of one row against `version`. */
export function judgeRow(row: PackageRow, version: string, order: VersionOrder, probe?: VersionProbe): RowVerdict {
  if (row.fixed_branches === null) return { kind: 'undetermined', reason: UNRANGED_REASON };
  const matched: MatchedRange[] = [];
  let gitOnly = row.fixed_branches.length > 0;
  const unreadable: string[] = [];
  for (const branch of row.fixed_branches) {
    const verdict = judgeBranch(row.ecosystem, branch, version, probe);
    if (verdict.kind !== 'not_comparable') gitOnly = false;
    if (verdict.kind === 'inside') matched.push({ ...branch, why: verdict.why });
    else if (verdict.kind === 'undetermined') unreadable.push(verdict.why);
  }
  const listed = listedVersion(row, version, order);
  if (listed !== undefined) {
    matched.push({
      introduced: null, fixed: null, last_affected: null, limit: null, range_type: 'VERSIONS',
      advisory_id: row.advisory_ids.length === 1 ? row.advisory_ids[0]! : row.advisory_ids.join(', ') || null,
      source: row.source,
      why: `${version} is in the advisory's explicit list of affected versions`,
    });
  }
  if (matched.length > 0) return { kind: 'affected', matched };
  if (gitOnly && row.versions.length === 0) return { kind: 'not_comparable', reason: 'only GIT (commit) ranges are on record: they cannot be compared with a version' };
  if (unreadable.length > 0) return { kind: 'undetermined', reason: unreadable[0]! };
  if (row.fixed_branches.length === 0 && row.versions.length === 0) return { kind: 'undetermined', reason: 'the advisory lists neither ranges nor versions' };
  return { kind: 'not_affected' };
}

/**
 * The versions of a row's explicit list the order can read, ascending (equal ones spelled
 * apart in list order). OSV lists run to hundreds of versions: one binary search per question
 * instead of a comparison with each.
 */
const sortedListsKept = new WeakMap<PackageRow, Map<VersionOrder, string[]>>();

function sortedVersions(row: PackageRow, order: VersionOrder): string[] {
  let byOrder = sortedListsKept.get(row);
  if (!byOrder) sortedListsKept.set(row, (byOrder = new Map()));
  let sorted = byOrder.get(order);
  if (sorted) return sorted;
  sorted = readableSorted(row.versions, order);
  byOrder.set(order, sorted);
  return sorted;
}

/**
 * The first entry (in list order) of the row's `versions` list that the order finds equal to
 * `version` (`1.0` for `1.0.0` in PyPI, or the same string); undefined if none.
 */
function listedVersion(row: PackageRow, version: string, order: VersionOrder): string | undefined {
  if (row.versions.length === 0) return undefined;
  const sorted = sortedVersions(row, order);
  const below = countBefore(sorted, version, order, false);
  return below < sorted.length && order.compare(sorted[below]!, version) === 0 ? sorted[below] : undefined;
}

/**
 * The distinct fixed versions of `rows` the order can read, ascending (equal versions spelled
 * apart keep their first-seen order). Kept per row list: the upgrade search and every
 * affected row's `fixed_in` ask for the fixes above a version, a suffix of this list.
 */
const sortedFixesKept = new WeakMap<readonly PackageRow[] | PackageRow, Map<VersionOrder, string[]>>();

function sortedFixes(rows: readonly PackageRow[] | PackageRow, order: VersionOrder): string[] {
  let byOrder = sortedFixesKept.get(rows);
  if (!byOrder) sortedFixesKept.set(rows, (byOrder = new Map()));
  let fixes = byOrder.get(order);
  if (fixes) return fixes;
  const seen = new Set<string>();
  for (const row of Array.isArray(rows) ? (rows as readonly PackageRow[]) : [rows as PackageRow]) {
    for (const b of row.fixed_branches ?? []) if (b.fixed !== null && orderFor(row.ecosystem, b.range_type) !== null) seen.add(b.fixed);
  }
  // A fix the order cannot read is no candidate.
  fixes = readableSorted(seen, order);
  byOrder.set(order, fixes);
  return fixes;
}

/** The fixes of `sorted` (ascending, see sortedFixes) above `version`: the upgrade candidates. */
function fixesAbove(sorted: readonly string[], version: string, order: VersionOrder): readonly string[] {
  return sorted.slice(countBefore(sorted, version, order, true));
}

/** Whether any branch or the `versions` list of the row holds `version` (no explanations). */
function rowHolds(row: PackageRow, version: string, order: VersionOrder, probe?: VersionProbe): boolean {
  for (const b of row.fixed_branches ?? []) if (branchHolds(row.ecosystem, b, version, probe)) return true;
  return listedVersion(row, version, order) !== undefined;
}

/**
 * The smallest candidate fix that no matched row holds. The row that refused the previous
 * candidate is asked first (it usually refuses the next one too), so a package with hundreds of
 * advisories costs about one check per candidate, not one per candidate and row.
 */
function upgradeFor(asked: AskedPackage, ecosystem: string, rows: readonly PackageRow[], affected: readonly PackageRow[], version: string, order: VersionOrder): Upgrade {
  const pending = [...affected];
  const matched = new Set(affected);
  for (const candidate of fixesAbove(sortedFixes(rows, order), version, order)) {
    const probe = new RankedProbe(asked, candidate);
    const blocker = pending.findIndex((r) => rowHolds(r, candidate, order, probe));
    if (blocker >= 0) {
      if (blocker > 0) pending.unshift(...pending.splice(blocker, 1));
      continue;
    }
    const also = rows.filter((r) => !matched.has(r) && rowHolds(r, candidate, order, probe)).map((r) => findingId({ cve_id: r.cve.cve_id, advisory_ids: r.advisory_ids }));
    return {
      ecosystem,
      to: candidate,
      statement: `Upgrade to ${candidate} or later: it is outside every matched range.${also.length > 0 ? ` Note: ${also.join(', ')} affect${also.length === 1 ? 's' : ''} ${candidate}.` : ''}`,
      also_affected_by: [...new Set(also)],
    };
  }
  return { ecosystem, to: null, statement: `No fixed version on record clears every match for ${ecosystem}.`, also_affected_by: [] };
}

/**
 * The answer for one package and version. Throws VersionSyntaxError when the version is not
 * a version of the ecosystem (the caller reports it; never a silent "not affected").
 */
export function checkVersion(index: PackageIndex, q: PackageQuery & { version: string }): VersionAnswer {
  const order = orderFor(q.ecosystem, 'ECOSYSTEM')!;
  order.check(q.version);
  const asked = askedPackage(index, q);
  const probe = new RankedProbe(asked, q.version);
  const vulnerabilities: AffectedFinding[] = [];
  const notComparable: UnjudgedRow[] = [];
  const undetermined: UnjudgedRow[] = [];
  const affectedRows: PackageRow[] = [];
  let notAffected = 0;
  // Rows judged by spans alone that do not hold the version are simply not affected; only the
  // others (a few) are judged branch by branch, with explanations.
  const table = spanTable(asked, order);
  const held = new Uint8Array(asked.ranged.length);
  if (table.count > 0) markHeld(table, probe.place(order), held);
  for (let entry = 0; entry < asked.ranged.length; entry++) {
    const { row, position } = asked.ranged[entry]!;
    if (table.bySpans[entry] === 1 && held[entry] === 0) {
      notAffected++;
      continue;
    }
    const verdict = judgeRow(row, q.version, order, probe);
    if (verdict.kind === 'affected') {
      affectedRows.push(row);
      const fixedIn = fixesAbove(sortedFixes(row, order), q.version, order).find((f) => !rowHolds(row, f, order, new RankedProbe(asked, f))) ?? null;
      const base = keptFinding(row);
      vulnerabilities.push(extendsKept({ ...base, matched: verdict.matched, fixed_in: fixedIn }, base));
    } else if (verdict.kind === 'not_affected') notAffected++;
    else if (verdict.kind === 'not_comparable') notComparable.push({ row, reason: verdict.reason, position });
    else undetermined.push({ row, reason: verdict.reason, position });
  }
  const ecosystems = [...new Set(affectedRows.map((r) => r.ecosystem))].sort();
  const upgrade = ecosystems.map((eco) =>
    upgradeFor(asked, eco, asked.canHold.get(eco) ?? [], affectedRows.filter((r) => r.ecosystem === eco), q.version, order),
  );
  return {
    ecosystem: q.ecosystem,
    name: q.name,
    version: q.version,
    version_order: order.name,
    affected: vulnerabilities.length > 0,
    vulnerabilities: vulnerabilities.sort(byRisk),
    upgrade,
    not_comparable: groupUnjudged(notComparable).map((g) => g.group),
    undetermined: undeterminedGroups(asked, undetermined),
    not_affected_count: notAffected,
  };
}

/** Every advisory of the package with its ranges (no version asked). */
export function listAdvisories(index: PackageIndex, q: PackageQuery): ListAnswer {
  const advisories = rowsAsked(index, q)
    .map((row) => ({ ...finding(row), source: row.source, fixed_branches: row.fixed_branches, versions: row.versions }))
    .sort(byRisk);
  return { ecosystem: q.ecosystem, name: q.name, version: null, advisories };
}
