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
 * `Ubuntu:22.04:LTS`). Case-insensitive.
 */
export function ecosystemMatches(asked: string, stored: string): boolean {
  const a = asked.toLowerCase();
  const s = stored.toLowerCase();
  return s === a || s.startsWith(`${a}:`);
}
