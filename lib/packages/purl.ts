/**
 * Package URLs (parsed by `packageurl-js`) → the OSV package they name: ecosystem as OSV spells
 * it (with the distribution release where the purl gives one), package name as OSV spells it,
 * and version. Mapping: npm (`@scope/name`), pypi → PyPI, maven → Maven (`group:artifact`),
 * golang → Go (`namespace/name`), cargo → crates.io, gem → RubyGems, nuget → NuGet,
 * composer → Packagist (`vendor/name`), hex → Hex, pub → Pub, swift → SwiftURL
 * (`github.com/owner/repo`), githubactions → GitHub Actions (`owner/repo`), deb → Debian /
 * Ubuntu (release from `distro`: `debian-12`, `bookworm`, `ubuntu-22.04`, `jammy`), apk →
 * Alpine (`alpine-3.20` → `Alpine:v3.20`) / Wolfi / Chainguard, rpm → Red Hat, Rocky Linux,
 * AlmaLinux, openSUSE, SUSE, Mageia, openEuler by namespace (release of Rocky/Alma from
 * `distro`). On rpm and deb purls the `epoch` qualifier is put before the version as `epoch:version`. A deb or apk purl's
 * `upstream` qualifier names the source package it was built from (see sourcePackage).
 */
import { PackageURL } from 'packageurl-js';
import { alpineRelease, debianRelease, majorRelease } from './releases.ts';

export interface PurlPackage {
  purl: string;
  ecosystem: string;
  name: string;
  version: string | null;
}

/** The purl could not be read at all, or names a package type with no OSV ecosystem. */
export class PurlError extends Error {
  constructor(
    readonly purl: string,
    message: string,
    readonly kind: 'malformed' | 'unsupported',
  ) {
    super(message);
    this.name = 'PurlError';
  }
}

const RPM_NAMESPACES: Record<string, string> = {
  redhat: 'Red Hat', rhel: 'Red Hat', rocky: 'Rocky Linux', 'rocky-linux': 'Rocky Linux', almalinux: 'AlmaLinux', alma: 'AlmaLinux',
  opensuse: 'openSUSE', suse: 'SUSE', sles: 'SUSE', mageia: 'Mageia', openeuler: 'openEuler',
  // What SBOM tools write: Syft the os-release ID (`opensuse-leap`, `opensuse-tumbleweed`,
  // `sle-micro`), Trivy its OS family (`opensuse.leap`, `opensuse.tumbleweed`, `slem`). They
  // were refused as unsupported: no answer for any package of an openSUSE image.
  'opensuse-leap': 'openSUSE', 'opensuse.leap': 'openSUSE', 'opensuse-tumbleweed': 'openSUSE', 'opensuse.tumbleweed': 'openSUSE',
  'sle-micro': 'SUSE', slem: 'SUSE',
};
const APK_NAMESPACES: Record<string, string> = { alpine: 'Alpine', wolfi: 'Wolfi', chainguard: 'Chainguard' };

function rpmEcosystem(namespace: string, distro: string | undefined): string | null {
  const base = RPM_NAMESPACES[namespace];
  if (!base) return null;
  const major = majorRelease(distro);
  return major && (base === 'Rocky Linux' || base === 'AlmaLinux') ? `${base}:${major}` : base;
}

/** The source package a distribution's binary package was built from, and its version when known. */
export interface SourcePackage {
  name: string;
  version: string | null;
}

/**
 * A deb or apk purl's source package, from the `upstream` qualifier SBOM tools write (Syft:
 * `upstream=openssl` or `upstream=openssl@3.0.11-1~deb12u1` on `pkg:deb/debian/libssl3@…`;
 * the apk origin package on `pkg:apk/alpine/libcrypto3@…`): Debian, Ubuntu and Alpine
 * advisories name the source package, so the binary's own name (`libssl3`) found none of
 * openssl's, a silent "not affected". The source version, when given, is the one the
 * advisories' ranges are written in (a binNMU `+b1` binary differs from its source). Null
 * without the qualifier or when it is blank.
 */
function sourcePackage(upstream: string | undefined): SourcePackage | null {
  const text = upstream?.trim() ?? '';
  if (text === '') return null;
  // dpkg's own spelling of a Source field with its version, `gcc-defaults (1.203)`, written by some tools.
  const dpkgField = /^(\S+)\s+\(([^()\s]+)\)$/.exec(text);
  if (dpkgField) return { name: dpkgField[1]!, version: dpkgField[2]! };
  const at = text.indexOf('@');
  const name = (at < 0 ? text : text.slice(0, at)).trim();
  const version = at < 0 ? '' : text.slice(at + 1).trim();
  return name === '' ? null : { name, version: version === '' ? null : version };
}

/**
 * The first qualifier key a purl repeats (keys compared in lower case, as the spec has them), or
 * null. packageurl-js keeps the last silently, so `distro=debian-11&distro=debian-12` was asked
 * as Debian 12: a question with two answers is refused instead.
 */
function repeatedQualifier(purl: string): string | null {
  const question = purl.indexOf('?');
  if (question < 0) return null;
  const hash = purl.indexOf('#', question);
  const seen = new Set<string>();
  for (const pair of purl.slice(question + 1, hash < 0 ? undefined : hash).split('&')) {
    if (pair === '') continue;
    const key = pair.split('=', 1)[0]!.toLowerCase();
    if (seen.has(key)) return key;
    seen.add(key);
  }
  return null;
}

/**
 * The package a deb/apk purl is judged as: its source package when `upstream` names one
 * (sourcePackage), else the one the SBOM recorded beside the purl (`recorded`), at the source
 * version when the purl has a version to judge.
 */
function bySource(upstream: string | undefined, recorded: SourcePackage | undefined, name: string, version: string | null): SourcePackage {
  const source = sourcePackage(upstream) ?? recorded ?? null;
  if (source === null) return { name, version };
  return { name: source.name, version: version === null ? null : (source.version ?? version) };
}

/** `epoch:version` when an `epoch` qualifier is given and the version carries none. */
function withEpoch(version: string | null, epoch: string | undefined): string | null {
  return version !== null && epoch && !version.includes(':') ? `${epoch}:${version}` : version;
}

/**
 * A platform gem's version without its platform: Gemfile.lock spells a platform gem
 * `nokogiri (1.13.10-x86_64-linux)`, and Syft writes that as the purl version. A published gem
 * version never holds `-` (Gem::Version rewrites it as `.pre.`), so the part after it is the
 * Gem::Platform (`cpu-os[-version]`, or `java`, `jruby`, `dalvik`, `mswin32`): read as a
 * version, `1.13.10-arm64-darwin` was a pre-release of 1.13.10 — "affected" by an advisory fixed
 * in 1.13.10, and below an `introduced` 1.13.10 — and `1.13.10-x86_64-linux` no version at all.
 * Only a suffix whose first part is a platform's CPU (or a bare platform) is taken off, so a
 * pre-release spelled with a dash (`1.14.0-rc1`) stays one.
 */
const GEM_PLATFORM = /^([0-9][0-9A-Za-z.]*)-((?:x86_64|x86|x64|i[3-6]86|universal|arm64|arm64e|aarch64|arm|armv[5-8]\w*|powerpc64le|powerpc64|powerpc|ppc64le|ppc64|ppc|s390x|s390|sparc64|sparc|riscv64|loongarch64|mips64el|mips64|mipsel|mips)-[0-9A-Za-z_.-]+|java|jruby|dalvik[0-9]*|mswin(?:32|64)(?:-[0-9]+)?|mingw32)$/;

function withoutGemPlatform(version: string | null): string | null {
  return version === null ? null : (GEM_PLATFORM.exec(version)?.[1] ?? version);
}

/** The purl types parsePurl maps to an OSV ecosystem (the cases of its switch). */
export const SUPPORTED_PURL_TYPES = ['npm', 'pypi', 'maven', 'golang', 'cargo', 'gem', 'nuget', 'composer', 'hex', 'pub', 'swift', 'githubactions', 'deb', 'apk', 'rpm'] as const;

/**
 * `recorded`: the source package an SBOM names beside a deb or apk purl without `upstream`
 * (Trivy's `aquasecurity:trivy:SrcName` properties, lib/sbom/read.ts); the qualifier wins.
 */
export function parsePurl(text: string, recorded?: SourcePackage): PurlPackage {
  let p: PackageURL;
  try {
    p = PackageURL.fromString(text.trim());
  } catch (err) {
    throw new PurlError(text, `"${text}" is not a valid Package URL: ${(err as Error).message}`, 'malformed');
  }
  const repeated = repeatedQualifier(text.trim());
  if (repeated !== null) throw new PurlError(text, `"${text}" is not a valid Package URL: qualifier "${repeated}" is given twice (the purl spec: a key must be unique)`, 'malformed');
  const ns = p.namespace ?? undefined;
  const q = p.qualifiers ?? {};
  const unsupported = (why: string) => new PurlError(text, `${text}: ${why}`, 'unsupported');
  let ecosystem: string;
  let name = p.name;
  let version = p.version ?? null;
  switch (p.type) {
    case 'npm':
      ecosystem = 'npm';
      name = ns ? `${ns}/${p.name}` : p.name;
      break;
    case 'pypi':
      ecosystem = 'PyPI';
      break;
    case 'maven':
      if (!ns) throw unsupported('a maven purl needs a namespace (the groupId)');
      ecosystem = 'Maven';
      name = `${ns}:${p.name}`;
      break;
    case 'golang':
      ecosystem = 'Go';
      name = ns ? `${ns}/${p.name}` : p.name;
      break;
    case 'cargo':
      ecosystem = 'crates.io';
      break;
    case 'gem':
      ecosystem = 'RubyGems';
      version = withoutGemPlatform(version);
      break;
    case 'nuget':
      ecosystem = 'NuGet';
      break;
    case 'composer':
      ecosystem = 'Packagist';
      name = ns ? `${ns}/${p.name}` : p.name;
      break;
    case 'hex':
      // A namespace names a private Hex organisation; OSV's Hex packages are the public names.
      ecosystem = 'Hex';
      break;
    case 'pub':
      ecosystem = 'Pub';
      break;
    case 'swift':
      // pkg:swift/github.com/apple/swift-nio: OSV names the package by its source URL without scheme.
      if (!ns) throw unsupported('a swift purl needs a namespace (the source host and owner, github.com/apple)');
      ecosystem = 'SwiftURL';
      name = `${ns}/${p.name}`;
      break;
    case 'githubactions':
      // pkg:githubactions/actions/checkout: OSV's GitHub Actions package is owner/repository.
      if (!ns) throw unsupported('a githubactions purl needs a namespace (the repository owner)');
      ecosystem = 'GitHub Actions';
      name = `${ns}/${p.name}`;
      break;
    case 'deb': {
      const n = (ns ?? '').toLowerCase();
      if (n !== 'debian' && n !== 'ubuntu') throw unsupported(`deb namespace "${ns ?? ''}" is neither debian nor ubuntu`);
      ecosystem = debianRelease(n, q.distro);
      // Trivy writes a deb package's epoch as a qualifier (`bsdutils@2.38.1-5+deb12u3?epoch=1`),
      // as the rpm type has it: read without it, 2.38.1-5+deb12u3 was below every `1:` fix on
      // record, "affected" by advisories fixed long before.
      version = withEpoch(version, q.epoch);
      ({ name, version } = bySource(q.upstream, recorded, name, version));
      break;
    }
    case 'apk': {
      const base = APK_NAMESPACES[(ns ?? '').toLowerCase()];
      if (!base) throw unsupported(`apk namespace "${ns ?? ''}" is not one of ${Object.keys(APK_NAMESPACES).join(', ')}`);
      ecosystem = base === 'Alpine' ? alpineRelease(q.distro) : base;
      ({ name, version } = bySource(q.upstream, recorded, name, version));
      break;
    }
    case 'rpm': {
      const eco = rpmEcosystem((ns ?? '').toLowerCase(), q.distro);
      if (!eco) throw unsupported(`rpm namespace "${ns ?? ''}" is not one of ${Object.keys(RPM_NAMESPACES).join(', ')}`);
      ecosystem = eco;
      version = withEpoch(version, q.epoch);
      break;
    }
    default:
      throw unsupported(`purl type "${p.type}" has no OSV ecosystem here (supported: ${SUPPORTED_PURL_TYPES.join(', ')})`);
  }
  return { purl: text.trim(), ecosystem, name, version };
}
