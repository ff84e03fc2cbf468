/**
 * The ecosystems whose versions can be ordered, spelled as OSV spells them, each with its
 * order. Distribution ecosystems carry a release after a colon (`Debian:12`,
 * `Ubuntu:22.04:LTS`, `Alpine:v3.18`, `Rocky Linux:8`): the part before the first colon names
 * the order. OSV range types: `SEMVER` always uses SemVer 2.0, `ECOSYSTEM` the ecosystem's
 * order, `GIT` has no version order at all.
 */
import { APK } from './apk.ts';
import { COMPOSER } from './composer.ts';
import { DPKG } from './dpkg.ts';
import { MAVEN } from './maven.ts';
import { NUGET_ORDER } from './nuget.ts';
import { PEP440 } from './pep440.ts';
import { RPM } from './rpm.ts';
import { GEM } from './rubygems.ts';
import type { VersionOrder } from './scheme.ts';
import { GO, PUB, SEMVER } from './semver-orders.ts';

export { SEMVER };

/** Base ecosystem (OSV spelling) → its version order. */
export const ECOSYSTEM_ORDERS: Readonly<Record<string, VersionOrder>> = {
  npm: SEMVER,
  PyPI: PEP440,
  Maven: MAVEN,
  Go: GO,
  'crates.io': SEMVER,
  RubyGems: GEM,
  NuGet: NUGET_ORDER,
  Packagist: COMPOSER,
  Hex: SEMVER,
  Pub: PUB,
  SwiftURL: SEMVER,
  'GitHub Actions': SEMVER,
  Debian: DPKG,
  Ubuntu: DPKG,
  Alpine: APK,
  Wolfi: APK,
  Chainguard: APK,
  'Red Hat': RPM,
  'Rocky Linux': RPM,
  AlmaLinux: RPM,
  openSUSE: RPM,
  SUSE: RPM,
  Mageia: RPM,
  openEuler: RPM,
};

export const SUPPORTED_ECOSYSTEMS: readonly string[] = Object.keys(ECOSYSTEM_ORDERS);

const BY_LOWER = new Map(SUPPORTED_ECOSYSTEMS.map((e) => [e.toLowerCase(), e]));

/** `debian:12` → `Debian`; null when the base is not supported. Case-insensitive. */
export function baseEcosystem(ecosystem: string): string | null {
  const base = ecosystem.split(':', 1)[0]!.trim().toLowerCase();
  return BY_LOWER.get(base) ?? null;
}

/** The ecosystem as OSV spells it (`pypi` → `PyPI`, `debian:12` → `Debian:12`); null when unsupported. */
export function canonicalEcosystem(ecosystem: string): string | null {
  const base = baseEcosystem(ecosystem);
  if (base === null) return null;
  const colon = ecosystem.indexOf(':');
  return colon < 0 ? base : base + ecosystem.slice(colon);
}

/** The order of an OSV range of `rangeType` for a package of `ecosystem`; null for GIT or an unknown type/ecosystem. */
export function orderFor(ecosystem: string, rangeType: string | null): VersionOrder | null {
  // Asked once per branch judged: the few (ecosystem, type) spellings of a snapshot are kept.
  let byType = ordersKept.get(ecosystem);
  if (byType === undefined) {
    if (ordersKept.size >= 10_000) ordersKept.clear();
    ordersKept.set(ecosystem, (byType = new Map()));
  }
  let order = byType.get(rangeType);
  if (order === undefined) byType.set(rangeType, (order = findOrder(ecosystem, rangeType)));
  return order;
}

const ordersKept = new Map<string, Map<string | null, VersionOrder | null>>();

function findOrder(ecosystem: string, rangeType: string | null): VersionOrder | null {
  const type = (rangeType ?? 'ECOSYSTEM').toUpperCase();
  if (type === 'SEMVER') return baseEcosystem(ecosystem) === 'Go' ? GO : SEMVER;
  if (type !== 'ECOSYSTEM') return null;
  const base = baseEcosystem(ecosystem);
  return base === null ? null : ECOSYSTEM_ORDERS[base]!;
}
