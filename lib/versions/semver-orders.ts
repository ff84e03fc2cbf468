/**
 * Orders built on Semantic Versioning 2.0 (the `semver` package, strict parsing): OSV `SEMVER`
 * ranges, npm, crates.io, Hex (Elixir's Version is SemVer 2.0), SwiftURL and GitHub Actions
 * (SemVer release tags); Pub (Dart's pub_semver: SemVer, then build metadata); Go modules (a
 * `v` prefix, pseudo-versions such as `v0.0.0-20191109021931-daa7c04131f5` are SemVer
 * pre-releases and order as such, and `+incompatible` is build metadata, ignored by the order,
 * as the go command does).
 */
import semver from 'semver';
import { orderOf, type VersionOrder } from './scheme.ts';

export const SEMVER: VersionOrder = orderOf('semver', (v) => semver.parse(v), (a, b) => a.compare(b));

/** Go: OSV spells versions without the `v` (`1.56.3`); module queries often carry it. */
export const GO: VersionOrder = orderOf(
  'go-semver',
  (v) => semver.parse(v.startsWith('v') ? v.slice(1) : v),
  (a, b) => a.compare(b),
);

/**
 * Pub: Dart's pub_semver orders as SemVer, then by build metadata where SemVer ignores it
 * (`1.0.0` < `1.0.0+1` < `1.0.0+a`, identifiers compared as pre-release identifiers are).
 */
export const PUB: VersionOrder = orderOf('pub-semver', (v) => semver.parse(v), (a, b) => a.compare(b) || a.compareBuild(b));
