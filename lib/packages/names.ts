/**
 * How package names are compared: case-insensitively everywhere (registries treat names so or
 * forbid case-only twins), and PyPI names normalised as PEP 503 says (runs of `-`, `_`, `.`
 * are one `-`), so `Zope.Interface` finds `zope-interface`.
 */
import { baseEcosystem } from '../versions/ecosystems.ts';

export function nameKey(ecosystem: string, name: string): string {
  const base = baseEcosystem(ecosystem) ?? ecosystem;
  const lower = name.trim().toLowerCase();
  return base === 'PyPI' ? lower.replace(/[-_.]+/g, '-') : lower;
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
