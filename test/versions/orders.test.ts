/**
 * Each ecosystem's version order against that ecosystem's own documented examples: Maven's
 * ComparableVersionTest lists, the dpkg/Debian Policy tilde examples, rpm's rpmvercmp test
 * list (tests/rpmvercmp.at), PEP 440's ordering examples, apk's observed order, the Go module
 * reference on pseudo-versions, NuGet's and Composer's documentation, Gem::Version's docs.
 */
import { describe, expect, it } from 'vitest';
import { APK } from '../../lib/versions/apk.ts';
import { COMPOSER, normalizeComposer, phpVersionCompare } from '../../lib/versions/composer.ts';
import { DPKG } from '../../lib/versions/dpkg.ts';
import { canonicalEcosystem, orderFor } from '../../lib/versions/ecosystems.ts';
import { MAVEN } from '../../lib/versions/maven.ts';
import { NUGET_ORDER } from '../../lib/versions/nuget.ts';
import { compare as pep440Compare } from '@renovatebot/pep440';
import { Version } from '@renovatebot/ruby-semver/dist/ruby/version.js';
import { PEP440 } from '../../lib/versions/pep440.ts';
import { RPM, rpmvercmp } from '../../lib/versions/rpm.ts';
import { GEM } from '../../lib/versions/rubygems.ts';
import { VersionSyntaxError, type VersionOrder } from '../../lib/versions/scheme.ts';
import { GO, SEMVER } from '../../lib/versions/semver-orders.ts';

/** Every earlier entry is strictly lower than every later one, both ways round. */
function expectAscending(order: VersionOrder, versions: string[]): void {
  for (let i = 0; i < versions.length; i++) {
    for (let j = i + 1; j < versions.length; j++) {
      expect(order.compare(versions[i]!, versions[j]!), `${versions[i]} < ${versions[j]}`).toBe(-1);
      expect(order.compare(versions[j]!, versions[i]!), `${versions[j]} > ${versions[i]}`).toBe(1);
    }
  }
}

function expectEqual(order: VersionOrder, a: string, b: string): void {
  expect(order.compare(a, b), `${a} == ${b}`).toBe(0);
  expect(order.compare(b, a), `${b} == ${a}`).toBe(0);
}

describe('Maven (ComparableVersionTest)', () => {
  it('orders the qualifier list', () => {
    expectAscending(MAVEN, ['1-alpha2snapshot', '1-alpha2', '1-alpha-123', '1-beta-2', '1-beta123', '1-m2', '1-m11', '1-rc', '1-cr2', '1-rc123', '1-SNAPSHOT', '1', '1-sp', '1-sp2', '1-sp123', '1-abc', '1-def', '1-pom-1', '1-1-snapshot', '1-1', '1-2', '1-123']);
  });
  it('compares every item of a sub-list with an absent one, not only the first (MNG-6964)', () => {
    for (const release of ['1', '1.0', '1-ga', '1.0.0.Final', '1-']) expectAscending(MAVEN, [release, '1-0.1']);
    expectEqual(MAVEN, '1-0', '1');
    expectEqual(MAVEN, '1-0.0', '1');
  });
  it('orders the number list', () => {
    expectAscending(MAVEN, ['2.0', '2.0.a', '2-1', '2.0.2', '2.0.123', '2.1.0', '2.1-a', '2.1b', '2.1-c', '2.1-1', '2.1.0.1', '2.2', '2.123', '11.a2', '11.a11', '11.b2', '11.b11', '11.m2', '11.m11', '11', '11.a', '11b', '11c', '11m']);
  });
  it('treats equal spellings as equal', () => {
    for (const [a, b] of [['1', '1.0'], ['1', '1.0.0'], ['1', '1-0'], ['1.0', '1.0-0'], ['1a', '1-a'], ['1a', '1.0.0-a'], ['1x', '1.0-x'], ['1cr', '1rc'], ['1a1', '1-alpha-1'], ['1b2', '1-beta-2'], ['1m3', '1-milestone-3'], ['1X', '1x'], ['1m3', '1MILESTONE3'], ['1ga', '1'], ['1final', '1'], ['1RELEASE', '1'], ['1.0.0-alpha1', '1.0.0-ALPHA1']]) {
      expectEqual(MAVEN, a!, b!);
    }
  });
  it('orders the documented comparisons', () => {
    for (const [a, b] of [['1', '2'], ['1.5', '2'], ['1.0-alpha-1', '1.0'], ['1.0-alpha-1', '1.0-beta-1'], ['1.0-beta-1', '1.0-SNAPSHOT'], ['1.0-SNAPSHOT', '1.0'], ['1.0-alpha-1-SNAPSHOT', '1.0-alpha-1'], ['1.0', '1.0-1'], ['1.0.0', '1.0-1'], ['2.0-1', '2.0.1'], ['2.0.1-klm', '2.0.1-lmn'], ['2.0.1', '2.0.1-xyz'], ['2.0.1-xyz', '2.0.1-123'], ['0.2', '1.0.7'], ['6.1.0rc3', '6.1.0'], ['6.1.0rc3', '6.1H.5-beta'], ['6.1.0', '6.1H.5-beta'], ['20190126.230843', '1234567890.12345'], ['123456789012345.1H.5-beta', '12345678901234567890.1H.5-beta']]) {
      expectAscending(MAVEN, [a!, b!]);
    }
    expectEqual(MAVEN, '0000000000000000001', '1');
  });
  it('compares versions nested thousands of lists deep (each letter/digit switch opens one): it overflowed the call stack', () => {
    const deep = '1a'.repeat(4_000);
    expect(MAVEN.compare(deep, `${deep}1`)).toBe(1);
    expect(MAVEN.compare(`${deep}1`, deep)).toBe(-1);
    expect(MAVEN.compare(deep, deep)).toBe(0);
    // Against a short bound, a sub-list compared with nothing all the way down.
    const zeros = `1${'-0'.repeat(8_000)}`;
    expectEqual(MAVEN, zeros, '1');
    expectAscending(MAVEN, ['1', `${zeros}-5`, '2']);
  });

  it('refuses what Maven refuses as a version: an unresolved ${property}, a character a file name cannot hold', () => {
    // SBOM tools that read pom.xml without resolving properties write `…/jackson-databind@${jackson.version}`:
    // ordered as a qualifier it came below every release, "affected" by every advisory from 0.
    for (const bad of ['${jackson.version}', '${project.version}', '2.${minor}', '1.0/2', '1:0', 'a"b', '1<2', '1|2', '1?', '1*', '1\\2']) {
      expect(() => MAVEN.check(bad), bad).toThrow(VersionSyntaxError);
    }
    // Dollars and braces alone are no expression; every other spelling stays a Maven version.
    for (const good of ['1.0$', '1.0-{x}', 'RELEASE', 'r09', '1.0-jre', '2.5.0-b34']) expect(() => MAVEN.check(good), good).not.toThrow();
  });
});

describe('Debian/Ubuntu (dpkg)', () => {
  it('orders the Debian Policy tilde example: ~~ < ~~a < ~ < (none) < a', () => {
    expectAscending(DPKG, ['1.0~~', '1.0~~a', '1.0~', '1.0', '1.0a']);
  });
  it('compares epochs first, then upstream, then revision', () => {
    expectAscending(DPKG, ['9.9-9', '1:0.1-1', '1:0.1-2', '2:0.0.1']);
    expectAscending(DPKG, ['3.0.11-1~deb12u1', '3.0.11-1~deb12u2', '3.0.11-1', '3.0.13-1~deb12u1']);
    expectEqual(DPKG, '0:1.0', '1.0');
    expectEqual(DPKG, '1.0-0', '1.0');
    expectEqual(DPKG, '1.01', '1.1');
  });
  it('orders letters before non-letters and digits as numbers', () => {
    expectAscending(DPKG, ['1.2', '1.2a', '1.2+', '1.10']);
    expectAscending(DPKG, ['2.30-1ubuntu1', '2.30-1ubuntu1.1', '2.30-1ubuntu2']);
  });
  it('refuses what dpkg refuses', () => {
    for (const bad of ['', 'a1.0', 'x:1.0', '1.0-', '1.0 beta', '1.0-r_1']) expect(() => DPKG.check(bad), bad).toThrow(VersionSyntaxError);
  });
});

describe('RPM (rpmvercmp test list)', () => {
  const cases: [string, string, number][] = [
    ['1.0', '1.0', 0], ['1.0', '2.0', -1], ['2.0.1', '2.0.1', 0], ['2.0', '2.0.1', -1], ['2.0.1a', '2.0.1a', 0], ['2.0.1a', '2.0.1', 1],
    ['5.5p1', '5.5p2', -1], ['5.5p10', '5.5p1', 1], ['10xyz', '10.1xyz', -1], ['xyz10', 'xyz10.1', -1], ['xyz.4', '8', -1], ['xyz.4', '2', -1],
    ['5.5p2', '5.6p1', -1], ['5.6p1', '6.5p1', -1], ['6.0.rc1', '6.0', 1], ['10b2', '10a1', 1], ['10a2', '10b2', -1],
    ['1.0aa', '1.0aa', 0], ['1.0a', '1.0aa', -1], ['10.0001', '10.1', 0], ['10.0001', '10.0039', -1], ['4.999.9', '5.0', -1],
    ['20101121', '20101122', -1], ['2_0', '2_0', 0], ['2.0', '2_0', 0], ['a', 'a', 0], ['a+', 'a_', 0],
    ['1.0~rc1', '1.0~rc1', 0], ['1.0~rc1', '1.0', -1], ['1.0~rc1', '1.0~rc2', -1], ['1.0~rc1~git123', '1.0~rc1', -1],
    ['1.0^', '1.0^', 0], ['1.0^', '1.0', 1], ['1.0^git1', '1.0', 1], ['1.0^git1', '1.0^git2', -1], ['1.0^git1', '1.01', -1],
    ['1.0^20160101', '1.0.1', -1], ['1.0^20160101^git1', '1.0^20160101', 1], ['1.0~rc1^git1', '1.0~rc1', 1], ['1.0^git1~pre', '1.0^git1', -1],
  ];
  it.each(cases)('rpmvercmp(%s, %s) = %i', (a, b, expected) => {
    expect(RPM.compare(a, b)).toBe(expected);
    expect(RPM.compare(b, a)).toBe(-expected || 0);
  });
  it('treats separators alike, even alone', () => {
    expect(rpmvercmp('+', '_')).toBe(0);
  });
  it('compares the epoch before version and release', () => {
    expectAscending(RPM, ['9.0-1.el8', '1:1.0-1.el8', '1:1.0-2.el8', '2:0.1-1']);
    expectEqual(RPM, '0:1.2.3-4', '1.2.3-4');
  });
});

describe('Alpine (apk)', () => {
  const cases: [string, string, number][] = [
    ['1', '1', 0], ['1', '1.0', -1], ['1.0', '1.0_alpha', -1], ['1.1', '1.1_alpha', 1], ['1.0', '1.0-r1', -1], ['1.1', '1.0-r1', 1],
    ['1.1', '1.0_p1', 1], ['1.1', '1.2_alpha', -1], ['1', '1-r1', -1], ['1', '1_p1', -1], ['1', '1_alpha', 1], ['1-r1', '1_p1', -1],
    ['1-r1', '1-r2', -1], ['1_p1', '1', 1], ['1', '2', -1], ['11', '1', 1], ['1.10.0', '1.2.0', 1], ['1.1.10', '1.1.4-r1', 1],
    ['1.1a', '1.1b', -1], ['1.0.2k-r0', '1.0.2i-r0', 1],
  ];
  it.each(cases)('apk(%s, %s) = %i', (a, b, expected) => {
    expect(APK.compare(a, b)).toBe(expected);
  });
  it('orders the suffixes', () => {
    expectAscending(APK, ['1.2_alpha1', '1.2_beta', '1.2_pre2', '1.2_rc1', '1.2_rc2', '1.2.1', '1.2.1_cvs1', '1.2.1_git20240101', '1.2.1_p1', '1.2.1_p1-r1']);
  });
  it('compares runs of digits past 2^53 by the numbers they write', () => {
    expectAscending(APK, ['12345678901234567', '12345678901234568', '0012345678901234569', '99999999999999999999991']);
    expectAscending(APK, ['1.0_git12345678901234567', '1.0_git12345678901234568', '1.0_p1']);
    expectAscending(APK, ['1.0-r12345678901234567', '1.0-r12345678901234568']);
    expectEqual(APK, '1.12345678901234567890', '1.12345678901234567890');
  });
  it('refuses what apk refuses', () => {
    for (const bad of ['', 'foo', 'a.39.0-', '1.0-x1', '1.0_blah']) expect(() => APK.check(bad), bad).toThrow(VersionSyntaxError);
  });
});

describe('PyPI (PEP 440)', () => {
  it('orders the PEP 440 summary example', () => {
    expectAscending(PEP440, ['1.dev0', '1.0.dev456', '1.0a1', '1.0a2.dev456', '1.0a12.dev456', '1.0a12', '1.0b1.dev456', '1.0b2', '1.0b2.post345.dev456', '1.0b2.post345', '1.0rc1.dev456', '1.0rc1', '1.0', '1.0+abc.5', '1.0+abc.7', '1.0+5', '1.0.post456.dev34', '1.0.post456', '1.0.15', '1.1.dev1']);
  });
  it('puts epochs first and normalises spellings', () => {
    expectAscending(PEP440, ['2024.1', '1!1.0']);
    expectEqual(PEP440, '1.0.0', '1.0');
    expectEqual(PEP440, '1.0-alpha1', '1.0a1');
  });
  it('refuses non-PEP 440 strings', () => {
    expect(() => PEP440.check('1.0-foo-bar')).toThrow(VersionSyntaxError);
  });
  it('compares numbers past 2^53 exactly, as Python integers', () => {
    // The library reads numbers as JS numbers: these pairs came out equal.
    expectAscending(PEP440, ['1.12345678901234567', '1.12345678901234568', '2.0']);
    expectAscending(PEP440, ['99999999999999999999991', '99999999999999999999999']);
    expectAscending(PEP440, ['1!1.0', '18446744073709551616!1.0', '18446744073709551617!0.1']);
    expectAscending(PEP440, ['1.0rc12345678901234567', '1.0rc12345678901234568', '1.0']);
    expectAscending(PEP440, ['1.0+12345678901234567', '1.0+12345678901234568', '1.0.post12345678901234567', '1.0.post12345678901234568']);
    expectEqual(PEP440, '12345678901234567.0', '12345678901234567');
  });
  it('compares its kept sort keys exactly as the library compares the strings', () => {
    const versions = ['1.dev0', '1.0.dev456', '1.0a1', '1.0a2.dev456', '1.0a12.dev456', '1.0a12', '1.0b1.dev456', '1.0b2', '1.0b2.post345.dev456', '1.0b2.post345', '1.0rc1.dev456', '1.0rc1', '1.0', '1.0+abc.5', '1.0+abc.7', '1.0+5', '1.0+5.abc', '1.0+ABC', '1.0.post456.dev34', '1.0.post456', '1.0.15', '1.1.dev1', '2024.1', '1!1.0', '1!0.9', '1.0.0', '1.0-alpha1', '1.0c1', '1.0-1', '1.0.post0', '1.0rev2', '0', '0.0.0.1', '1.0.dev0+local', 'v2.0'];
    for (const a of versions) for (const b of versions) expect(PEP440.compare(a, b), `${a} vs ${b}`).toBe(Math.sign(pep440Compare(a, b)));
  });
});

describe('Go (module versions)', () => {
  it('orders pseudo-versions as the module reference describes', () => {
    expectAscending(GO, ['v0.0.0-20191109021931-daa7c04131f5', 'v0.0.0', 'v1.2.3', 'v1.2.4-0.20191109021931-daa7c04131f5', 'v1.2.4-pre', 'v1.2.4-pre.0.20191109021931-daa7c04131f5', 'v1.2.4']);
  });
  it('ignores +incompatible and accepts OSV spellings without v', () => {
    expectEqual(GO, 'v2.0.0+incompatible', '2.0.0');
    expectAscending(GO, ['1.56.3', 'v1.57.0']);
  });
  it('reads Go release tags as the SemVer OSV spells stdlib and toolchain in (go1.21.5 was no version)', () => {
    expectEqual(GO, 'go1.21.5', '1.21.5');
    expectEqual(GO, 'go1.20', '1.20.0');
    expectEqual(GO, 'go1.21rc2', '1.21.0-rc.2');
    expectEqual(GO, 'go1', '1.0.0');
    // GO-2023-2102: introduced 1.21.0-0, fixed 1.21.3.
    expectAscending(GO, ['go1.20.9', '1.21.0-0', 'go1.21beta1', 'go1.21rc2', 'go1.21.0', 'go1.21.2', '1.21.3']);
    expect(() => GO.check('go1.x')).toThrow(VersionSyntaxError);
  });
});

describe('SemVer (npm, crates.io, OSV SEMVER)', () => {
  it('orders the SemVer 2.0 spec example', () => {
    expectAscending(SEMVER, ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0']);
    expectEqual(SEMVER, '1.0.0+build.1', '1.0.0');
  });
  it('refuses non-SemVer', () => {
    for (const bad of ['1.0', 'v1.0.0.0', 'latest']) expect(() => SEMVER.check(bad), bad).toThrow(VersionSyntaxError);
  });
});

describe('Pub (pub_semver) and the SemVer ecosystems of GHSA', () => {
  it('orders build metadata after the version it decorates, identifiers as pre-release identifiers', () => {
    const pub = orderFor('Pub', 'ECOSYSTEM')!;
    expectAscending(pub, ['1.0.0-pre', '1.0.0-pre+build', '1.0.0', '1.0.0+1', '1.0.0+2', '1.0.0+900', '1.0.0+a', '1.0.0+a1', '1.0.0+b', '1.0.1']);
    expectAscending(pub, ['1.2.3+1z', '1.2.3+9a']);
    // SemVer itself ignores build metadata: Hex, SwiftURL and GitHub Actions do too.
    for (const ecosystem of ['Hex', 'SwiftURL', 'GitHub Actions']) expectEqual(orderFor(ecosystem, 'ECOSYSTEM')!, '1.0.0', '1.0.0+1');
  });
});

describe('RubyGems (Gem::Version)', () => {
  it('orders pre-releases (any letter) before the release', () => {
    expectAscending(GEM, ['1.0.a', '1.0.a10', '1.0.b1', '1.0.rc1', '1.0', '1.0.1', '1.1', '10.0']);
    expectEqual(GEM, '1.0', '1.0.0');
  });
  it('compares letters as String#<=> does (bytes: every capital first) and numbers exactly', () => {
    // The library collates letters by locale (RC after beta) and reads numbers as JS numbers.
    expectAscending(GEM, ['1.0.RC1', '1.0.a', '1.0.beta1', '1.0']);
    expectAscending(GEM, ['1.0.B1', '1.0.Z', '1.0.a']);
    expectAscending(GEM, ['12345678901234567', '12345678901234568', '99999999999999999999991', '99999999999999999999999.0.1']);
    expectAscending(GEM, ['1.0.a12345678901234567', '1.0.a12345678901234568']);
    expectEqual(GEM, '99999999999999999999999.0.0', '99999999999999999999999');
  });
  it('gives the same order as the library on lower-case versions of safe numbers', () => {
    const versions = ['1.0.a', '1.0.a10', '1.0.b1', '1.0.rc1', '1.0', '1.0.0', '1.0.1', '1.1', '10.0', '1.0.0.pre', '2.a.1', '0.9.9.9', '1.0.0.0.1', '1.0.beta2', '1.0.beta10', '3.0.0.rc.2', '1.a2b', '1.0.0-pre.1', '0', '00.1', '1.0.0.a.0', ' 1.0.1 ', '1.0-1'];
    for (const a of versions) for (const b of versions) expect(GEM.compare(a, b), `${a} vs ${b}`).toBe(Math.sign(Version.create(a)!.compare(Version.create(b))));
  });
});

describe('NuGet', () => {
  it('orders four-part versions and case-insensitive pre-releases', () => {
    expectAscending(NUGET_ORDER, ['1.0.0-alpha', '1.0.0-Alpha.2', '1.0.0-beta', '1.0.0-rc.1', '1.0.0', '1.0.0.1', '1.0.1', '1.1']);
    expectEqual(NUGET_ORDER, '1.0', '1.0.0.0');
    expectEqual(NUGET_ORDER, '1.0.0-RC.1', '1.0.0-rc.1');
    expectEqual(NUGET_ORDER, '1.0.0+build', '1.0.0');
  });
});

describe('Packagist (Composer)', () => {
  it('normalises as Composer VersionParser does', () => {
    expect(normalizeComposer('v1.2')).toBe('1.2.0.0');
    expect(normalizeComposer('1.0.0-beta.1')).toBe('1.0.0.0-beta1');
    expect(normalizeComposer('2.1.3-RC2')).toBe('2.1.3.0-RC2');
    expect(normalizeComposer('1.0.0p1')).toBe('1.0.0.0-patch1');
    expect(normalizeComposer('dev-main')).toBeNull();
  });
  it('orders stabilities dev < alpha < beta < RC < stable < patch', () => {
    expectAscending(COMPOSER, ['1.0.0-dev', '1.0.0-alpha1', '1.0.0-beta', '1.0.0-beta2', '1.0.0-RC1', '1.0.0', '1.0.0-p1', '1.0.1', '8.7.23', '9.5.4', '10.0']);
    expectEqual(COMPOSER, 'v9.5.4', '9.5.4.0');
  });
  it('compares its kept canonical forms as version_compare compares the normalised strings', () => {
    const versions = ['1.0.0-dev', '1.0.0-alpha1', '1.0.0-beta', '1.0.0-beta2', '1.0.0-RC1', '1.0.0', '1.0.0-p1', '1.0.1', '8.7.23', '9.5.4', '10.0', 'v9.5.4', '2024.01.15', '1.0.0-pl2', '1.0-a', '1.2.3.4'];
    for (const a of versions) for (const b of versions) expect(COMPOSER.compare(a, b), `${a} vs ${b}`).toBe(Math.sign(phpVersionCompare(normalizeComposer(a)!, normalizeComposer(b)!)));
  });
  it('refuses a long run of digits after a stability at once (it took seconds per digit more: one request held a replica)', () => {
    // 22 digits took seconds before, twice as long with each digit more (40: days).
    for (const version of [`1.0rc${'1'.repeat(22)}!`, `20200101beta${'1'.repeat(22)}x`]) {
      const started = performance.now();
      expect(normalizeComposer(version)).toBeNull();
      expect(() => COMPOSER.check(`${version} `)).toThrow(VersionSyntaxError);
      expect(performance.now() - started).toBeLessThan(500);
    }
    // The stability numbers it reads are read as before.
    expect(normalizeComposer('1.0.0-RC1.2')).toBe('1.0.0.0-RC1.2');
    expect(normalizeComposer('1.0.0beta-12')).toBe('1.0.0.0-beta12');
    expect(normalizeComposer(`1.0rc${'1'.repeat(30)}-dev`)).toBe(`1.0.0.0-RC${'1'.repeat(30)}-dev`);
  });
});

describe('ecosystem names', () => {
  it('accepts OSV spellings in any case and keeps distro releases', () => {
    expect(canonicalEcosystem('pypi')).toBe('PyPI');
    expect(canonicalEcosystem('debian:12')).toBe('Debian:12');
    expect(canonicalEcosystem('CRATES.IO')).toBe('crates.io');
    expect(canonicalEcosystem('Hackage')).toBeNull();
  });
  it('gives GIT ranges no order and SEMVER ranges SemVer', () => {
    expect(orderFor('npm', 'GIT')).toBeNull();
    expect(orderFor('PyPI', 'SEMVER')).toBe(SEMVER);
    expect(orderFor('Debian:12', 'ECOSYSTEM')).toBe(DPKG);
  });
});
