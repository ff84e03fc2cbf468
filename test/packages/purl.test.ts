/** Package URLs to OSV packages (lib/packages/purl.ts): releases, source packages, hostile qualifiers that must cost no more than ordinary ones. */
import { describe, expect, it } from 'vitest';
import { checkVersion } from '../../lib/packages/check.ts';
import { parsePurl, SUPPORTED_PURL_TYPES } from '../../lib/packages/purl.ts';
import { indexOf, osv, range } from './osv-rows.ts';

describe('parsePurl: the Alpine release of `distro`', () => {
  it('reads the first major.minor wherever it stands', () => {
    const ecosystemOf = (distro: string) => parsePurl(`pkg:apk/alpine/openssl@3.3.2-r0?distro=${encodeURIComponent(distro)}`).ecosystem;
    expect(ecosystemOf('alpine-3.20')).toBe('Alpine:v3.20');
    expect(ecosystemOf('3.18.4')).toBe('Alpine:v3.18');
    expect(ecosystemOf('v3.19')).toBe('Alpine:v3.19');
    expect(ecosystemOf('edge1x2.3')).toBe('Alpine:v2.3');
    expect(ecosystemOf('edge')).toBe('Alpine');
  });

  it('a long run of digits without a dot is read at once (it took half a second: tried from each digit)', () => {
    const started = performance.now();
    expect(parsePurl(`pkg:apk/alpine/openssl@3.3.2-r0?distro=${'1'.repeat(15_000)}x`).ecosystem).toBe('Alpine');
    expect(parsePurl(`pkg:apk/alpine/openssl@3.3.2-r0?distro=${'1'.repeat(15_000)}.2`).ecosystem).toBe(`Alpine:v${'1'.repeat(15_000)}.2`);
    expect(performance.now() - started).toBeLessThan(100);
  });
});

describe('parsePurl: qualifiers', () => {
  it('a qualifier given twice is refused naming it (packageurl-js kept the last: two releases asked as one)', () => {
    expect(() => parsePurl('pkg:deb/debian/openssl@3.0.11-1?distro=debian-11&distro=debian-12')).toThrow(/qualifier "distro" is given twice/);
    expect(() => parsePurl('pkg:deb/debian/openssl@3.0.11-1?Distro=debian-11&distro=debian-12')).toThrow(/qualifier "distro" is given twice/);
    // One of each, or the same text in a subpath, is a purl as before.
    expect(parsePurl('pkg:deb/debian/openssl@3.0.11-1?arch=amd64&distro=debian-12').ecosystem).toBe('Debian:12');
    expect(parsePurl('pkg:deb/debian/openssl@3.0.11-1?distro=debian-12#a&distro=x').ecosystem).toBe('Debian:12');
  });
});

describe('parsePurl: the source package of a deb or apk binary (`upstream`)', () => {
  it('asks for the source package the advisories name, at the source version when given', () => {
    // Syft's purls of a Debian 12 image: libssl3 is built from openssl, whose advisories name openssl.
    expect(parsePurl('pkg:deb/debian/libssl3@3.0.11-1~deb12u2?arch=amd64&upstream=openssl&distro=debian-12')).toMatchObject({ ecosystem: 'Debian:12', name: 'openssl', version: '3.0.11-1~deb12u2' });
    // A binNMU: the binary's version is not the source's; the ranges are in source versions.
    expect(parsePurl('pkg:deb/debian/libfoo1@1.2-3%2Bb1?upstream=foo%401.2-3&distro=debian-12')).toMatchObject({ name: 'foo', version: '1.2-3' });
    expect(parsePurl('pkg:deb/ubuntu/libc6@2.35-0ubuntu3.8?upstream=glibc&distro=ubuntu-22.04')).toMatchObject({ ecosystem: 'Ubuntu:22.04', name: 'glibc' });
    // dpkg's Source field spelling, `name (version)`.
    expect(parsePurl('pkg:deb/debian/g%2B%2B@4:12.2.0-3?upstream=gcc-defaults%20%281.203%29&distro=debian-12')).toMatchObject({ name: 'gcc-defaults', version: '1.203' });
    // Alpine: the origin package.
    expect(parsePurl('pkg:apk/alpine/libcrypto3@3.3.2-r0?arch=x86_64&upstream=openssl&distro=alpine-3.20.3')).toMatchObject({ ecosystem: 'Alpine:v3.20', name: 'openssl', version: '3.3.2-r0' });
  });

  it('without `upstream`, blank, or without a version to judge: the purl as it is', () => {
    expect(parsePurl('pkg:deb/debian/libssl3@3.0.11-1~deb12u2?distro=debian-12')).toMatchObject({ name: 'libssl3', version: '3.0.11-1~deb12u2' });
    expect(parsePurl('pkg:deb/debian/libssl3@3.0.11-1~deb12u2?upstream=&distro=debian-12')).toMatchObject({ name: 'libssl3' });
    expect(parsePurl('pkg:deb/debian/libssl3?upstream=openssl%403.0.11-1&distro=debian-12')).toMatchObject({ name: 'openssl', version: null });
    // Other types keep their name: `upstream` is a deb/apk convention.
    expect(parsePurl('pkg:npm/lodash@4.17.20?upstream=other')).toMatchObject({ name: 'lodash' });
  });

  it('the source an SBOM records beside the purl (Trivy) counts when the purl has no `upstream`, and only for deb and apk', () => {
    const recorded = { name: 'openssl', version: '3.0.11-1~deb12u1' };
    expect(parsePurl('pkg:deb/debian/libssl3@3.0.11-1~deb12u1?distro=debian-12', recorded)).toMatchObject({ name: 'openssl', version: '3.0.11-1~deb12u1' });
    expect(parsePurl('pkg:deb/debian/libssl3@3.0.11-1~deb12u1?distro=debian-12', { name: 'openssl', version: null })).toMatchObject({ name: 'openssl', version: '3.0.11-1~deb12u1' });
    expect(parsePurl('pkg:deb/debian/libssl3@3.0.11-1?upstream=openssl3&distro=debian-12', recorded)).toMatchObject({ name: 'openssl3', version: '3.0.11-1' });
    expect(parsePurl('pkg:rpm/rocky/openssl-libs@3.0.7-24.el9?distro=rocky-9.3', { name: 'openssl', version: null })).toMatchObject({ name: 'openssl-libs' });
  });
});

describe('parsePurl: the `epoch` qualifier of a deb purl (Trivy writes the epoch there)', () => {
  it('puts the epoch before the version, as for rpm; an epoch in the version stands', () => {
    expect(parsePurl('pkg:deb/debian/bsdutils@2.38.1-5%2Bdeb12u3?arch=amd64&distro=debian-12&epoch=1')).toMatchObject({ ecosystem: 'Debian:12', version: '1:2.38.1-5+deb12u3' });
    expect(parsePurl('pkg:deb/debian/bsdutils@1:2.38.1-5%2Bdeb12u3?arch=amd64&distro=debian-12&epoch=1').version).toBe('1:2.38.1-5+deb12u3');
    expect(parsePurl('pkg:deb/ubuntu/bsdutils@2.37.2-4ubuntu3.4?distro=ubuntu-22.04&epoch=1').version).toBe('1:2.37.2-4ubuntu3.4');
    expect(parsePurl('pkg:deb/debian/bsdutils?distro=debian-12&epoch=1').version).toBeNull();
    // The binary's epoch is the version judged when `upstream` names no source version.
    expect(parsePurl('pkg:deb/debian/bsdutils@2.38.1-5%2Bdeb12u3?upstream=util-linux&distro=debian-12&epoch=1')).toMatchObject({ name: 'util-linux', version: '1:2.38.1-5+deb12u3' });
  });

  it('a fixed package is not "affected" (read without its epoch it was below every `1:` fix)', async () => {
    const index = await indexOf([
      { record: osv('DEBIAN-CVE-2026-90901', [{ package: { ecosystem: 'Debian:12', name: 'util-linux' }, ranges: [range('ECOSYSTEM', ['introduced', '0'], ['fixed', '1:2.38.1-5+deb12u2'])] }]), cve: 'CVE-2026-90901' },
    ]);
    const judge = (purl: string) => checkVersion(index, parsePurl(purl) as { ecosystem: string; name: string; version: string }).vulnerabilities.map((v) => v.cve_id);
    expect(judge('pkg:deb/debian/util-linux@2.38.1-5%2Bdeb12u3?arch=amd64&distro=debian-12&epoch=1')).toEqual([]);
    expect(judge('pkg:deb/debian/util-linux@2.38.1-5%2Bdeb12u1?arch=amd64&distro=debian-12&epoch=1')).toEqual(['CVE-2026-90901']);
  });
});

describe('parsePurl: the platform of a platform gem (`nokogiri (1.13.10-x86_64-linux)` in Gemfile.lock)', () => {
  it('judges the gem version, not the platform read as a pre-release', () => {
    // Syft writes the Gemfile.lock spec as the purl version; a published gem version never holds
    // `-` (Gem::Version makes it `.pre.`), so the part after it is Gem::Platform.
    const versionOf = (v: string) => parsePurl(`pkg:gem/nokogiri@${v}`).version;
    expect(versionOf('1.13.10-x86_64-linux')).toBe('1.13.10');
    expect(versionOf('1.13.10-x86_64-linux-musl')).toBe('1.13.10');
    expect(versionOf('1.16.5-aarch64-linux-gnu')).toBe('1.16.5');
    expect(versionOf('1.13.10-arm64-darwin')).toBe('1.13.10');
    expect(versionOf('1.13.10-x64-mingw-ucrt')).toBe('1.13.10');
    expect(versionOf('1.13.10-x86-mingw32')).toBe('1.13.10');
    expect(versionOf('1.13.10-java')).toBe('1.13.10');
    expect(versionOf('1.12.5-universal-darwin-21')).toBe('1.12.5');
    // A pre-release stays one, with a dash or a dot.
    expect(versionOf('1.14.0.rc1')).toBe('1.14.0.rc1');
    expect(versionOf('1.14.0-rc1')).toBe('1.14.0-rc1');
    expect(versionOf('1.14.0-pre-x86_64')).toBe('1.14.0-pre-x86_64');
  });

  it('a fixed platform gem is not "affected", and one at the first affected version is', async () => {
    const index = await indexOf([
      { record: osv('GHSA-T-GEM1', [{ package: { ecosystem: 'RubyGems', name: 'nokogiri' }, ranges: [range('ECOSYSTEM', ['introduced', '1.13.0'], ['fixed', '1.13.10'])] }]), cve: 'CVE-2026-90911' },
    ]);
    const judge = (purl: string) => checkVersion(index, parsePurl(purl) as { ecosystem: string; name: string; version: string }).vulnerabilities.map((v) => v.cve_id);
    // Read as 1.13.10.pre.x86_64.linux it was below the fix, and 1.13.0-… below `introduced`.
    expect(judge('pkg:gem/nokogiri@1.13.10-x86_64-linux')).toEqual([]);
    expect(judge('pkg:gem/nokogiri@1.13.0-x86_64-linux')).toEqual(['CVE-2026-90911']);
    expect(judge('pkg:gem/nokogiri@1.13.9-arm64-darwin')).toEqual(['CVE-2026-90911']);
  });
});

describe('parsePurl: rpm namespaces as SBOM tools write them', () => {
  it('openSUSE and SLE Micro as Syft (os-release ID) and Trivy (OS family) name them (they were refused as unsupported)', () => {
    expect(parsePurl('pkg:rpm/opensuse-leap/curl@8.0.1-150400.5.41.1?arch=x86_64&distro=opensuse-leap-15.5')).toMatchObject({ ecosystem: 'openSUSE', name: 'curl', version: '8.0.1-150400.5.41.1' });
    expect(parsePurl('pkg:rpm/opensuse.leap/curl@8.0.1-150400.5.41.1?arch=x86_64&distro=opensuse.leap-15.5').ecosystem).toBe('openSUSE');
    expect(parsePurl('pkg:rpm/opensuse-tumbleweed/curl@8.5.0-1.1?arch=x86_64&distro=opensuse-tumbleweed-20240101').ecosystem).toBe('openSUSE');
    expect(parsePurl('pkg:rpm/opensuse.tumbleweed/curl@8.5.0-1.1?arch=x86_64').ecosystem).toBe('openSUSE');
    expect(parsePurl('pkg:rpm/sle-micro/curl@8.0.1-150400.5.41.1?distro=sle-micro-5.5').ecosystem).toBe('SUSE');
    expect(parsePurl('pkg:rpm/slem/curl@8.0.1-150400.5.41.1?distro=slem-5.5').ecosystem).toBe('SUSE');
  });
});

describe('parsePurl: the Debian or Ubuntu release of `distro`', () => {
  it('a point release names its release (ubuntu-22.04.3 was asked as Ubuntu:22.04.3, a release OSV has not)', () => {
    const ecosystemOf = (ns: string, distro: string) => parsePurl(`pkg:deb/${ns}/openssl@3.0.2-0ubuntu1.10?distro=${distro}`).ecosystem;
    expect(ecosystemOf('ubuntu', 'ubuntu-22.04.3')).toBe('Ubuntu:22.04');
    expect(ecosystemOf('ubuntu', 'ubuntu-22.04')).toBe('Ubuntu:22.04');
    expect(ecosystemOf('ubuntu', 'jammy')).toBe('Ubuntu:22.04');
    expect(ecosystemOf('debian', 'debian-12.5')).toBe('Debian:12');
    expect(ecosystemOf('debian', 'bookworm')).toBe('Debian:12');
    // Releases whose fixes OSV still holds (Debian LTS/ELTS, Ubuntu Pro): they asked every release.
    expect(ecosystemOf('ubuntu', 'trusty')).toBe('Ubuntu:14.04');
    expect(ecosystemOf('debian', 'jessie')).toBe('Debian:8');
  });
});

describe('parsePurl: the supported types', () => {
  it('maps every type SUPPORTED_PURL_TYPES names, and refuses another naming exactly that list', () => {
    const examples: Record<(typeof SUPPORTED_PURL_TYPES)[number], string> = {
      npm: 'pkg:npm/left-pad@1.3.0',
      pypi: 'pkg:pypi/django@3.2.1',
      maven: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1',
      golang: 'pkg:golang/github.com/gin-gonic/gin@v1.9.0',
      cargo: 'pkg:cargo/tokio@1.0.0',
      gem: 'pkg:gem/rack@3.0.14',
      nuget: 'pkg:nuget/Newtonsoft.Json@13.0.1',
      composer: 'pkg:composer/laravel/framework@9.0.0',
      hex: 'pkg:hex/plug@1.14.0',
      pub: 'pkg:pub/http@0.13.0',
      swift: 'pkg:swift/github.com/apple/swift-nio@2.0.0',
      githubactions: 'pkg:githubactions/actions/checkout@4.0.0',
      deb: 'pkg:deb/debian/openssl@3.0.11-1~deb12u1?distro=debian-12',
      apk: 'pkg:apk/alpine/openssl@3.3.2-r0?distro=alpine-3.20.3',
      rpm: 'pkg:rpm/redhat/openssl@3.0.7-27.el9?distro=rhel-9',
    };
    for (const type of SUPPORTED_PURL_TYPES) expect(parsePurl(examples[type]).ecosystem, type).toBeTruthy();
    expect(() => parsePurl('pkg:cocoapods/AFNetworking@4.0.1')).toThrow(`(supported: ${SUPPORTED_PURL_TYPES.join(', ')})`);
  });
});
