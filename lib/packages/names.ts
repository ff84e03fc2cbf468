/**
 * How package names are compared: case-insensitively everywhere (registries treat names so or
 * forbid case-only twins), and PyPI names normalised as PEP 503 says (runs of `-`, `_`, `.`
 * are one `-`), so `Zope.Interface` finds `zope-interface`.
 */
import { baseEcosystem } from '../versions/ecosystems.ts';

/** A name as PEP 503 normalises PyPI's: lower case, each run of `-`, `_`, `.` one `-`. */
export function pep503Name(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

export function nameKey(ecosystem: string, name: string): string {
  const base = baseEcosystem(ecosystem) ?? ecosystem;
  return base === 'PyPI' ? pep503Name(name.trim()) : name.trim().toLowerCase();
}

/** The index key of a package: its base ecosystem (any release) and its name key. */
export function packageKey(ecosystem: string, name: string): string {
  const base = baseEcosystem(ecosystem) ?? ecosystem;
  return `${base.toLowerCase()}\u0000${nameKey(base, name)}`;
}

/**
 * Whether a stored ecosystem (`Debian:12`, `Ubuntu:22.04:LTS`) is the one asked for: the same
 * spelling, or a release of it (`Debian` asks for every Debian release, `Ubuntu:22.04` for
 * `Ubuntu:22.04:LTS`). An Ubuntu release also finds its Ubuntu Pro records
 * (`Ubuntu:Pro:18.04:LTS`): Canonical files a fix shipped through ESM there, and once a
 * release's standard support ends every new fix is one, so 18.04 found none of the CVEs fixed
 * since and answered "not affected" for packages that are. The Pro variants of other builds
 * (`Ubuntu:Pro:FIPS:18.04:LTS`) version other packages and are not. Case-insensitive.
 */
export function ecosystemMatches(asked: string, stored: string): boolean {
  const a = asked.toLowerCase();
  const s = stored.toLowerCase();
  if (s === a || s.startsWith(`${a}:`)) return true;
  const release = /^ubuntu:(\d[^:]*)$/.exec(a)?.[1];
  return release !== undefined && (s === `ubuntu:pro:${release}` || s.startsWith(`ubuntu:pro:${release}:`));
}
