/**
 * One OSV range branch against one version, as the OSV schema evaluates ranges: the version
 * is inside when it is at or after `introduced` ("0" or none: from the first version), before
 * `fixed` or at or before `last_affected` (neither: no end), and before the range's `limit`
 * (`*` or none: no limit). The branch's range type picks the order (SEMVER, or the ecosystem's
 * own for ECOSYSTEM); GIT ranges name commits and have no version order.
 */
import { orderFor } from '../versions/ecosystems.ts';
import { VersionSyntaxError, type VersionOrder } from '../versions/scheme.ts';

export interface RangeBranch {
  introduced: string | null;
  fixed: string | null;
  last_affected: string | null;
  limit: string | null;
  range_type: string | null;
  advisory_id: string | null;
  source: string | null;
}

export type BranchVerdict =
  | { kind: 'inside'; why: string }
  | { kind: 'outside' }
  | { kind: 'not_comparable'; why: string }
  | { kind: 'undetermined'; why: string };

/** A bound that does not bound: none, `0` (from the first version) or `*` (no limit). */
export const unbounded = (v: string | null): boolean => v === null || v === '0' || v === '*';

/**
 * Whether the version (through `probe`) is inside the branch's bounds, compared in the schema's
 * order: introduced, then fixed or last_affected, then limit. Throws VersionSyntaxError for a
 * side the order cannot read.
 */
function withinBounds(branch: RangeBranch, order: VersionOrder, probe: VersionProbe): boolean {
  if (!unbounded(branch.introduced) && probe.compare(order, branch.introduced!) < 0) return false;
  if (branch.fixed !== null) {
    if (probe.compare(order, branch.fixed) >= 0) return false;
  } else if (branch.last_affected !== null && probe.compare(order, branch.last_affected) > 0) return false;
  return unbounded(branch.limit) || probe.compare(order, branch.limit!) < 0;
}

/**
 * How `version` compares with a bound in an order: the order itself, or (lib/packages/ranked.ts)
 * a lookup among a package's bounds ranked once, which gives the same sign.
 */
export interface VersionProbe {
  compare(order: VersionOrder, bound: string): number;
  /**
   * Optionally, whether the branch holds the version, answered without comparing bound by bound
   * (lib/packages/ranked.ts: integer places); undefined when the probe cannot tell, and
   * withinBounds compares as the schema says.
   */
  holds?(order: VersionOrder, branch: RangeBranch): boolean | undefined;
}

/** The order's own comparison of `version` with each bound. */
export function plainProbe(version: string): VersionProbe {
  return { compare: (order, bound) => order.compare(version, bound) };
}

export function judgeBranch(ecosystem: string, branch: RangeBranch, version: string, probe: VersionProbe = plainProbe(version)): BranchVerdict {
  const order: VersionOrder | null = orderFor(ecosystem, branch.range_type);
  if (order === null) {
    const type = branch.range_type ?? 'unknown';
    return type.toUpperCase() === 'GIT'
      ? { kind: 'not_comparable', why: 'a GIT range names commits, not versions: it cannot be compared with a version' }
      : { kind: 'undetermined', why: `range type ${type} has no version order for ${ecosystem}` };
  }
  try {
    // The explanation is written only for a branch that holds the version (most do not).
    if (!(probe.holds?.(order, branch) ?? withinBounds(branch, order, probe))) return { kind: 'outside' };
    const parts = [
      unbounded(branch.introduced) ? `no lower bound (introduced ${branch.introduced ?? 'none'})` : `≥ introduced ${branch.introduced}`,
      branch.fixed !== null ? `< fixed ${branch.fixed}` : branch.last_affected !== null ? `≤ last_affected ${branch.last_affected}` : 'no fix on record',
    ];
    if (!unbounded(branch.limit)) parts.push(`< limit ${branch.limit}`);
    return { kind: 'inside', why: `${version}: ${parts.join(', ')} (${branch.range_type ?? 'ECOSYSTEM'} range, ${order.name} order)` };
  } catch (err) {
    if (!(err instanceof VersionSyntaxError)) throw err;
    return err.version === version
      ? { kind: 'undetermined', why: `${version} is not a ${err.order} version, the order of this ${branch.range_type} range` }
      : { kind: 'undetermined', why: `the advisory's bound "${err.version}" is not a valid ${err.order} version` };
  }
}

/** Whether the branch holds `version` (no explanation): the hot path of the upgrade search. */
export function branchHolds(ecosystem: string, branch: RangeBranch, version: string, probe: VersionProbe = plainProbe(version)): boolean {
  const order = orderFor(ecosystem, branch.range_type);
  if (order === null) return false;
  try {
    return probe.holds?.(order, branch) ?? withinBounds(branch, order, probe);
  } catch (err) {
    if (err instanceof VersionSyntaxError) return false;
    throw err;
  }
}
