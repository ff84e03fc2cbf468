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

/** A Go release tag as `go version` prints it: go1.21.5, go1.21rc2, go1.20 (x/vuln's GoTagToSemver). */
const GO_TAG = /^go(\d+\.\d+)(\.\d+)?(?:(beta|rc|-pre)(\d+))?$/;

/**
 * A Go release tag as the SemVer OSV spells the `stdlib` and `toolchain` packages in (go1.21.5
 * → 1.21.5, go1.20 → 1.20.0, go1.21rc2 → 1.21.0-rc.2, go1 → 1.0.0), as Go's vulnerability
 * tools convert it; null for anything else. What `go version` prints was refused as no
 * version, where the Go vulnerability database answers it.
 */
function goTagSemver(v: string): string | null {
  if (v === 'go1') return '1.0.0';
  const m = GO_TAG.exec(v);
  if (!m) return null;
  const pre = m[3] ? `${m[3].startsWith('-') ? '' : '-'}${m[3]}.${m[4]}` : '';
  return `${m[1]}${m[2] ?? '.0'}${pre}`;
}

/** Go: OSV spells versions without the `v` (`1.56.3`); module queries often carry it, Go release tags a `go`. */
export const GO: VersionOrder = orderOf(
  'go-semver',
  (v) => semver.parse(goTagSemver(v) ?? (v.startsWith('v') ? v.slice(1) : v)),
  (a, b) => a.compare(b),
);

/**
 * Pub: Dart's pub_semver orders as SemVer, then by build metadata where SemVer ignores it
 * (`1.0.0` < `1.0.0+1` < `1.0.0+a`, identifiers compared as pre-release identifiers are).
 */
export const PUB: VersionOrder = orderOf('pub-semver', (v) => semver.parse(v), (a, b) => a.compare(b) || a.compareBuild(b));
