/**
 * The offline scan: every SBOM component against the package index of a snapshot, with the
 * code the API answers with (lib/packages). A component is judged when it has a purl of a
 * supported type with a version the ecosystem can read; any other component is listed with
 * the reason, never dropped.
 */
import { checkVersion, byRisk, type AffectedFinding, type Upgrade, type UnjudgedFinding } from '../../lib/packages/check.ts';
import type { PackageIndex } from '../../lib/packages/index.ts';
import { parsePurl, PurlError, type PurlPackage } from '../../lib/packages/purl.ts';
import type { SbomComponent } from '../../lib/sbom/read.ts';
import { VersionSyntaxError } from '../../lib/versions/scheme.ts';

export interface ScanFinding extends AffectedFinding {
  component: SbomComponent;
  version: string;
  upgrade: Upgrade | null;
}

export interface UnjudgedComponent {
  component: SbomComponent;
  reason: string;
}

export interface ScanResult {
  components: number;
  judged: number;
  findings: ScanFinding[];
  /** Components the scan could not judge at all (no purl, unknown type, unreadable version). */
  unjudged: UnjudgedComponent[];
  /** Advisories of judged components that could not be compared (GIT ranges, unreadable bounds). */
  unjudged_advisories: (UnjudgedFinding & { component: SbomComponent; kind: 'not_comparable' | 'undetermined' })[];
}

/** The purl of each component that has one (parsing errors are the caller's to report). */
export function componentPurl(c: SbomComponent): PurlPackage | string {
  if (c.purl === null) return 'no purl';
  try {
    const p = parsePurl(c.purl);
    if (p.version === null && c.version !== null) return { ...p, version: c.version };
    return p;
  } catch (err) {
    if (err instanceof PurlError) return err.kind === 'unsupported' ? `unknown ecosystem: ${err.message}` : err.message;
    throw err;
  }
}

export function scanComponents(index: PackageIndex, components: SbomComponent[]): ScanResult {
  const result: ScanResult = { components: components.length, judged: 0, findings: [], unjudged: [], unjudged_advisories: [] };
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
    for (const v of answer.vulnerabilities) {
      result.findings.push({ ...v, component, version: p.version, upgrade: answer.upgrade.find((u) => u.ecosystem === v.ecosystem) ?? null });
    }
    for (const u of answer.not_comparable) result.unjudged_advisories.push({ ...u, component, kind: 'not_comparable' });
    for (const u of answer.undetermined) result.unjudged_advisories.push({ ...u, component, kind: 'undetermined' });
  }
  result.findings.sort((a, b) => byRisk(a, b) || a.component.ref.localeCompare(b.component.ref));
  return result;
}

export type FailOn = 'critical' | 'high' | 'kev';

/** Whether the findings reach the `--fail-on` threshold. */
export function failsOn(findings: readonly ScanFinding[], failOn: FailOn | undefined): boolean {
  if (!failOn) return false;
  if (failOn === 'kev') return findings.some((f) => f.kev);
  const levels = failOn === 'critical' ? ['CRITICAL'] : ['CRITICAL', 'HIGH'];
  return findings.some((f) => levels.includes(f.service_severity));
}
