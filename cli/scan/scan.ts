/**
 * The offline scan: every SBOM component against the package index of a snapshot, with the
 * code the API answers with (lib/packages). A component is judged when it has a purl of a
 * supported type with a version the ecosystem can read; any other component is listed with
 * the reason, never dropped.
 */
import { checkVersion, byRisk, type AffectedFinding, type Upgrade, type UnjudgedCve, type UnjudgedGroup } from '../../lib/packages/check.ts';
import type { PackageIndex } from '../../lib/packages/index.ts';
import { parsePurl, PurlError, type PurlPackage } from '../../lib/packages/purl.ts';
import type { SbomComponent } from '../../lib/sbom/read.ts';
import { VersionSyntaxError } from '../../lib/versions/scheme.ts';

export interface ScanFinding extends AffectedFinding {
  component: SbomComponent;
  version: string;
  /** The upgrade of the component's package in this finding's ecosystem (its statement: ScanResult.upgrades). */
  upgrade_to: string | null;
}

export interface UnjudgedComponent {
  component: SbomComponent;
  reason: string;
}

export interface ScanResult {
  components: number;
  judged: number;
  findings: ScanFinding[];
  /**
   * Per affected component and ecosystem release, the upgrade with its statement (once per
   * component, not repeated in each of its findings, which carry `upgrade_to`).
   */
  upgrades: (Upgrade & { component: string })[];
  /** Components the scan could not judge at all (no purl, unknown type, unreadable version). */
  unjudged: UnjudgedComponent[];
  /**
   * Advisories of judged components that could not be compared (GIT ranges, unreadable bounds,
   * packages the CVE record names without ranges), one group per package, reason and list of
   * CVEs, naming the components it concerns: a package can carry a thousand such advisories,
   * and an SBOM the same package many times over.
   */
  unjudged_advisories: UnjudgedAdvisories[];
}

/** An answer's group of unjudged advisories (lib/packages/check.ts), with its kind and the components it concerns. */
export interface UnjudgedAdvisories extends UnjudgedGroup {
  kind: 'not_comparable' | 'undetermined';
  /** `bom-ref`s of the components concerned, in SBOM order. */
  components: string[];
}

/** The purl of each component that has one (parsing errors are the caller's to report). */
export function componentPurl(c: SbomComponent): PurlPackage | string {
  if (c.purl === null) return c.purlProblem ?? 'no purl';
  try {
    const p = parsePurl(c.purl, c.source);
    if (p.version === null && c.version !== null) return { ...p, version: c.version };
    return p;
  } catch (err) {
    if (err instanceof PurlError) return err.kind === 'unsupported' ? `unknown ecosystem: ${err.message}` : err.message;
    throw err;
  }
}

export function scanComponents(index: PackageIndex, components: SbomComponent[]): ScanResult {
  const result: ScanResult = { components: components.length, judged: 0, findings: [], upgrades: [], unjudged: [], unjudged_advisories: [] };
  const groups = new UnjudgedGroups();
  for (const component of components) {
    const p = componentPurl(component);
    if (typeof p === 'string') {
      result.unjudged.push({ component, reason: p });
      continue;
    }
    if (p.version === null) {
      result.unjudged.push({ component, reason: `${p.purl}: no version to judge` });
      continue;
    }
    let answer;
    try {
      answer = checkVersion(index, { ecosystem: p.ecosystem, name: p.name, version: p.version });
    } catch (err) {
      if (!(err instanceof VersionSyntaxError)) throw err;
      result.unjudged.push({ component, reason: `unparseable version: ${err.message} for ${p.ecosystem}` });
      continue;
    }
    result.judged++;
    for (const u of answer.upgrade) result.upgrades.push({ component: component.ref, ...u });
    for (const v of answer.vulnerabilities) {
      result.findings.push({ ...v, component, version: p.version, upgrade_to: answer.upgrade.find((u) => u.ecosystem === v.ecosystem)?.to ?? null });
    }
    groups.add(component, 'not_comparable', answer.not_comparable);
    groups.add(component, 'undetermined', answer.undetermined);
  }
  result.findings.sort((a, b) => byRisk(a, b) || a.component.ref.localeCompare(b.component.ref));
  result.unjudged_advisories = groups.list();
  return result;
}

/** The answers' groups of unjudged advisories, each once with every component it concerns. */
class UnjudgedGroups {
  /** By kind, reason, ecosystem and package: the groups (one per distinct CVE list). */
  private readonly byKey = new Map<string, UnjudgedAdvisories[]>();

  add(component: SbomComponent, kind: UnjudgedAdvisories['kind'], groups: readonly UnjudgedGroup[]): void {
    for (const group of groups) {
      const key = `${kind}\u0000${group.reason}\u0000${group.ecosystem}\u0000${group.package_name}`;
      let same = this.byKey.get(key);
      if (!same) this.byKey.set(key, (same = []));
      // The same reason for other CVEs (another version's verdicts) is another group.
      const existing = same.find((g) => sameCves(g.cves, group.cves));
      if (existing) {
        if (!existing.components.includes(component.ref)) existing.components.push(component.ref);
      } else same.push({ kind, reason: group.reason, ecosystem: group.ecosystem, package_name: group.package_name, components: [component.ref], cves: group.cves });
    }
  }

  /** Riskiest group first (its first CVE is its riskiest), then by package. */
  list(): UnjudgedAdvisories[] {
    return [...this.byKey.values()].flat().sort(
      (a, b) => byRisk(a.cves[0]!, b.cves[0]!) || a.package_name.localeCompare(b.package_name) || a.reason.localeCompare(b.reason),
    );
  }
}

/** Whether two lists name the same CVEs through the same advisories, in the same order. */
function sameCves(a: readonly UnjudgedCve[], b: readonly UnjudgedCve[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    if (x.cve_id !== y.cve_id || x.advisory_ids.length !== y.advisory_ids.length || x.advisory_ids.some((id, j) => id !== y.advisory_ids[j])) return false;
  }
  return true;
}

export type FailOn = 'critical' | 'high' | 'kev';

/** Whether the findings reach the `--fail-on` threshold. */
export function failsOn(findings: readonly ScanFinding[], failOn: FailOn | undefined): boolean {
  if (!failOn) return false;
  if (failOn === 'kev') return findings.some((f) => f.kev);
  const levels = failOn === 'critical' ? ['CRITICAL'] : ['CRITICAL', 'HIGH'];
  return findings.some((f) => levels.includes(f.service_severity));
}
