/**
 * Distribution releases as OSV spells them in an ecosystem (`Debian:12`, `Ubuntu:22.04`,
 * `Alpine:v3.20`, `Rocky Linux:9`), from the spellings SBOM tools and people use: a codename
 * (`bookworm`, `jammy`), a point release (`12.5`, `22.04.3`, `3.20.3`, `9.3`), Alpine's release
 * without its `v`. One reading for a purl's `distro` qualifier (lib/packages/purl.ts) and the
 * release of an ecosystem asked by name (api/queries/packages.ts): a release OSV does not spell
 * so names no advisory, and the package was answered "not affected".
 */
const DEBIAN_CODENAMES: Record<string, string> = { wheezy: '7', jessie: '8', stretch: '9', buster: '10', bullseye: '11', bookworm: '12', trixie: '13', forky: '14' };
const UBUNTU_CODENAMES: Record<string, string> = {
  trusty: '14.04', xenial: '16.04', bionic: '18.04', focal: '20.04', jammy: '22.04', kinetic: '22.10', lunar: '23.04', mantic: '23.10', noble: '24.04', oracular: '24.10', plucky: '25.04', questing: '25.10',
};

/** `Debian:12` / `Ubuntu:22.04` from a `distro` (`debian-12.5`, `bookworm`, `ubuntu-22.04.3`, `jammy`); the bare distribution when unreadable. */
export function debianRelease(namespace: string, distro: string | undefined): string {
  const base = namespace === 'ubuntu' ? 'Ubuntu' : 'Debian';
  if (!distro) return base;
  const d = distro.toLowerCase().replace(/^(debian|ubuntu)-/, '');
  // A point release is its release: Debian 12.5 is Debian:12, Ubuntu 22.04.3 Ubuntu:22.04 (read
  // whole, `Ubuntu:22.04.3` named no release OSV has, and nothing was found affected).
  const release = base === 'Ubuntu' ? (UBUNTU_CODENAMES[d] ?? d.split('.').slice(0, 2).join('.')) : (DEBIAN_CODENAMES[d] ?? d.split('.')[0]!);
  return /^[\d.]+$/.test(release) ? `${base}:${release}` : base;
}

/** `Alpine:v3.20` from a `distro` (`alpine-3.20.3`, `3.20`, `v3.20`); `Alpine` when it names none. */
export function alpineRelease(distro: string | undefined): string {
  // Tried only where a run of digits begins: unanchored, a long run without a dot was tried from
  // each of its digits, each try backing off digit by digit (15,000 digits: half a second of the
  // event loop for one purl). The first match is the same.
  const m = distro ? /(?<!\d)(\d+)\.(\d+)/.exec(distro) : null;
  return m ? `Alpine:v${m[1]}.${m[2]}` : 'Alpine';
}

/** The major release OSV names Rocky Linux and AlmaLinux by (`9` of `rocky-9.3`), if any. */
export function majorRelease(distro: string | undefined): string | undefined {
  return distro ? /(\d+)/.exec(distro)?.[1] : undefined;
}

/**
 * An ecosystem asked by name (canonical base, `canonicalEcosystem`) with its release as OSV
 * spells it: `Alpine:3.20.3` → `Alpine:v3.20`, `Debian:bookworm` → `Debian:12`, `Ubuntu:jammy`
 * → `Ubuntu:22.04`, `Rocky Linux:9.3` → `Rocky Linux:9`. Only a release of one part, and only
 * one read as a release: OSV's longer spellings (`Ubuntu:22.04:LTS`, `Ubuntu:Pro:18.04:LTS`) and
 * an unreadable release stand as asked.
 */
export function askedRelease(ecosystem: string): string {
  const colon = ecosystem.indexOf(':');
  if (colon < 0) return ecosystem;
  const base = ecosystem.slice(0, colon);
  const release = ecosystem.slice(colon + 1).trim();
  if (release === '' || release.includes(':')) return ecosystem;
  let read: string;
  if (base === 'Debian' || base === 'Ubuntu') read = debianRelease(base.toLowerCase(), release);
  else if (base === 'Alpine') read = alpineRelease(release);
  else if (base === 'Rocky Linux' || base === 'AlmaLinux') {
    const major = /^\d+(?:\.\d+)*$/.test(release) ? majorRelease(release) : undefined;
    read = major ? `${base}:${major}` : base;
  } else return ecosystem;
  return read === base ? ecosystem : read;
}
