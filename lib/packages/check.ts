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
import { VersionSyntaxError, type VersionOrder } from '../versions/scheme.ts';
import { extendsKept, keepJson } from '../json-reuse.ts';
import { ecosystemMatches } from './names.ts';
import type { CveRisk, PackageIndex, PackageRow } from './index.ts';
import { branchHolds, judgeBranch, unbounded, type RangeBranch, type VersionProbe } from './ranges.ts';

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

export interface UnjudgedFinding extends Finding {
  reason: string;
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
  not_comparable: UnjudgedFinding[];
  undetermined: readonly UnjudgedFinding[];
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

/** What the risk order reads. */
export type RiskOrderFields = Pick<CveRisk, 'cve_id' | 'service_risk' | 'kev' | 'epss_score'>;

/** Service risk first, then KEV, then EPSS, then the id (the order of every list here). */
export function byRisk(a: RiskOrderFields, b: RiskOrderFields): number {
  return b.service_risk - a.service_risk || Number(b.kev) - Number(a.kev) || (b.epss_score ?? -1) - (a.epss_score ?? -1) || (a.cve_id < b.cve_id ? -1 : a.cve_id > b.cve_id ? 1 : 0);
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

const UNRANGED_REASON = 'no version ranges on record: the package is named by the CVE record only';

/**
 * What of a package does not depend on the version asked, worked out once per package and
 * ecosystem spelling: a package can carry over a thousand rows named by CVE records only
 * (no ranges), undetermined at every version, and sorting and serialising those again for
 * every question was most of an answer's cost.
 */
interface AskedPackage {
  /** Rows judged per version (ranges on record), with their position in `rows`. */
  ranged: { row: PackageRow; position: number }[];
  /** The findings of the rows without ranges, by risk (ties: row order), frozen and kept as JSON (lib/json-reuse.ts). */
  unranged: { finding: UnjudgedFinding; position: number }[];
  /** The same findings as one frozen list with kept JSON: the whole `undetermined` of most answers. */
  unrangedList: readonly UnjudgedFinding[];
  /** Per ecosystem, rows that can hold a version (ranges or an explicit list): the only ones the upgrade search asks. */
  canHold: Map<string, PackageRow[]>;
  /** The package's range bounds ranked in each order, made when first asked (see RankedProbe). */
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
  const unranged: AskedPackage['unranged'] = [];
  rows.forEach((row, position) => {
    if (row.fixed_branches !== null) ranged.push({ row, position });
    else unranged.push({ finding: keepJson(Object.freeze({ ...finding(row), reason: UNRANGED_REASON })), position });
  });
  unranged.sort((a, b) => byRisk(a.finding, b.finding) || a.position - b.position);
  const canHold = new Map<string, PackageRow[]>();
  for (const row of rows) {
    if (row.fixed_branches === null && row.versions.length === 0) continue;
    const list = canHold.get(row.ecosystem);
    if (list) list.push(row);
    else canHold.set(row.ecosystem, [row]);
  }
  const unrangedList = keepJson(Object.freeze(unranged.map((e) => e.finding)));
  asked = { ranged, unranged, unrangedList, canHold, ranked: new Map() };
  if (cache.size >= ASKED_CACHE_SIZE) cache.clear();
  cache.set(key, asked);
  return asked;
}

/** The readable versions of `values` in `order`, ascending (equal ones spelled apart keep their order). */
function readableSorted(values: Iterable<string>, order: VersionOrder): string[] {
  const readable: string[] = [];
  for (const v of values) {
    try {
      order.check(v);
      readable.push(v);
    } catch {
      // a version the order cannot read has no place in the order
    }
  }
  return readable.sort((a, b) => order.compare(a, b));
}

/** How many of `sorted` (ascending in `order`) come before `version`, or are at most `version` with `orEqual`. */
function countBefore(sorted: readonly string[], version: string, order: VersionOrder, orEqual: boolean): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const c = order.compare(sorted[mid]!, version);
    if (c < 0 || (orEqual && c === 0)) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * The distinct bounds (introduced, fixed, last_affected, limit) of a package's ranges in one
 * order, ascending; equal versions spelled apart share a rank. A version's place among them is
 * one binary search, after which comparing it with any of them is comparing two integers: a
 * package with hundreds of ranges costs a dozen comparisons per question instead of hundreds.
 */
interface RankedBounds {
  /** One version per rank, ascending. */
  sorted: string[];
  rankOf: Map<string, number>;
  /** The branches of this order as spans of places (see branchSpan), each made when first asked. */
  spans: Map<RangeBranch, BranchSpan | null>;
}

/**
 * A branch as the places it holds: a version at place p (see RankedProbe) is inside when
 * lo ≤ p < hi. The schema's tests read as places: at or after introduced at rank i is
 * p ≥ 2i+1; before fixed at rank f is p < 2f+1; at or before last_affected at rank l is
 * p < 2l+2; before limit at rank m is p < 2m+1. Null when a bound is not ranked (unreadable,
 * or a `0`/`*` where the schema expects a version): withinBounds then compares as it always did.
 */
interface BranchSpan {
  lo: number;
  hi: number;
}

function branchSpan(ranked: RankedBounds, branch: RangeBranch): BranchSpan | null {
  let lo = 0;
  let hi = Number.POSITIVE_INFINITY;
  if (!unbounded(branch.introduced)) {
    const rank = ranked.rankOf.get(branch.introduced!);
    if (rank === undefined) return null;
    lo = 2 * rank + 1;
  }
  const end = branch.fixed ?? branch.last_affected;
  if (end !== null) {
    const rank = ranked.rankOf.get(end);
    if (rank === undefined) return null;
    hi = branch.fixed !== null ? 2 * rank + 1 : 2 * rank + 2;
  }
  if (!unbounded(branch.limit)) {
    const rank = ranked.rankOf.get(branch.limit!);
    if (rank === undefined) return null;
    hi = Math.min(hi, 2 * rank + 1);
  }
  return { lo, hi };
}

function rankBounds(asked: AskedPackage, order: VersionOrder): RankedBounds {
  let ranked = asked.ranked.get(order);
  if (ranked) return ranked;
  const bounds = new Set<string>();
  for (const { row } of asked.ranged) {
    for (const b of row.fixed_branches!) {
      if (orderFor(row.ecosystem, b.range_type) !== order) continue;
      // An unreadable bound stays unranked: the order compares it itself, and says so.
      for (const bound of [b.introduced, b.fixed, b.last_affected, b.limit]) if (!unbounded(bound)) bounds.add(bound!);
    }
  }
  const all = readableSorted(bounds, order);
  const sorted: string[] = [];
  const rankOf = new Map<string, number>();
  for (const bound of all) {
    if (sorted.length === 0 || order.compare(sorted[sorted.length - 1]!, bound) !== 0) sorted.push(bound);
    rankOf.set(bound, sorted.length - 1);
  }
  ranked = { sorted, rankOf, spans: new Map() };
  asked.ranked.set(order, ranked);
  return ranked;
}

/**
 * Compares `version` with the package's bounds through their ranks: the version's place among
 * them (2r+1 when it equals rank r, 2r when it falls just below rank r) is found once per order;
 * a bound not ranked (unreadable) is compared by the order, which throws as it always did.
 * A class, not closures: one is made per question and per upgrade candidate.
 */
class RankedProbe implements VersionProbe {
  private readonly places = new Map<VersionOrder, number>();

  constructor(
    private readonly asked: AskedPackage,
    private readonly version: string,
  ) {}

  compare(order: VersionOrder, bound: string): number {
    const ranked = rankBounds(this.asked, order);
    const rank = ranked.rankOf.get(bound);
    if (rank === undefined) return order.compare(this.version, bound);
    return Math.sign(this.placeOf(order, ranked) - (2 * rank + 1));
  }

  /** The branch's span against the version's place: integer comparisons instead of a lookup per bound. */
  holds(order: VersionOrder, branch: RangeBranch): boolean | undefined {
    const ranked = rankBounds(this.asked, order);
    let span = ranked.spans.get(branch);
    if (span === undefined) ranked.spans.set(branch, (span = branchSpan(ranked, branch)));
    if (span === null) return undefined;
    let place: number;
    try {
      place = this.placeOf(order, ranked);
    } catch (err) {
      // The version is no version of this order: withinBounds says so as it always did.
      if (err instanceof VersionSyntaxError) return undefined;
      throw err;
    }
    return span.lo <= place && place < span.hi;
  }

  private placeOf(order: VersionOrder, ranked: RankedBounds): number {
    let place = this.places.get(order);
    if (place !== undefined) return place;
    const known = ranked.rankOf.get(this.version);
    if (known !== undefined) place = 2 * known + 1;
    else {
      const below = countBefore(ranked.sorted, this.version, order, false);
      place = below < ranked.sorted.length && order.compare(ranked.sorted[below]!, this.version) === 0 ? 2 * below + 1 : 2 * below;
    }
    this.places.set(order, place);
    return place;
  }
}

/** The kept findings and those of the version (both by risk then row position), merged in that order. */
function mergeByRisk(asked: AskedPackage, b: AskedPackage['unranged']): readonly UnjudgedFinding[] {
  const a = asked.unranged;
  if (b.length === 0) return asked.unrangedList;
  const out: UnjudgedFinding[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const takeA = j >= b.length || (i < a.length && (byRisk(a[i]!.finding, b[j]!.finding) || a[i]!.position - b[j]!.position) < 0);
    out.push(takeA ? a[i++]!.finding : b[j++]!.finding);
  }
  return out;
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
    const also = rows.filter((r) => !matched.has(r) && rowHolds(r, candidate, order, probe)).map((r) => r.cve.cve_id);
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
  const notComparable: UnjudgedFinding[] = [];
  const undetermined: AskedPackage['unranged'] = [];
  const affectedRows: PackageRow[] = [];
  let notAffected = 0;
  for (const { row, position } of asked.ranged) {
    const verdict = judgeRow(row, q.version, order, probe);
    if (verdict.kind === 'affected') {
      affectedRows.push(row);
      const fixedIn = fixesAbove(sortedFixes(row, order), q.version, order).find((f) => !rowHolds(row, f, order, new RankedProbe(asked, f))) ?? null;
      const base = keptFinding(row);
      vulnerabilities.push(extendsKept({ ...base, matched: verdict.matched, fixed_in: fixedIn }, base));
    } else if (verdict.kind === 'not_affected') notAffected++;
    else if (verdict.kind === 'not_comparable') notComparable.push({ ...finding(row), reason: verdict.reason });
    else undetermined.push({ finding: { ...finding(row), reason: verdict.reason }, position });
  }
  undetermined.sort((a, b) => byRisk(a.finding, b.finding) || a.position - b.position);
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
    not_comparable: notComparable.sort(byRisk),
    undetermined: mergeByRisk(asked, undetermined),
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
