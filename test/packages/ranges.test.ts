/**
 * OSV range evaluation (lib/packages): each event kind (introduced, fixed, last_affected,
 * limit), several ranges per package and several branches per range, explicit `versions`
 * lists, GIT ranges (not comparable), unreadable bounds (undetermined, never "not affected"),
 * the upgrade ("smallest fixed version that clears every match") and risk order.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkVersion, listAdvisories } from '../../lib/packages/check.ts';
import { VersionSyntaxError } from '../../lib/versions/scheme.ts';
import { indexOf, osv, range } from './osv-rows.ts';

const sample = (path: string) => JSON.parse(readFileSync(new URL(`../../data/sample/ghsa/${path}`, import.meta.url), 'utf8')) as unknown;
const MLFLOW_A = sample('advisories/github-reviewed/2026/09/GHSA-4r6w-x8vq-mc9j/GHSA-4r6w-x8vq-mc9j.json');
const MLFLOW_B = sample('advisories/github-reviewed/2026/10/GHSA-q3vc-8fj2-m5w7/GHSA-q3vc-8fj2-m5w7.json');

describe('introduced / fixed / last_affected over several ranges (GHSA mlflow, real format)', async () => {
  const index = await indexOf([
    { record: MLFLOW_A, cve: 'CVE-2026-90301', risk: { service_risk: 7 } },
    { record: MLFLOW_B, cve: 'CVE-2026-90302', risk: { service_risk: 9 } },
  ]);
  const ask = (version: string) => checkVersion(index, { ecosystem: 'PyPI', name: 'MLflow', version });

  it('holds a version inside [introduced, fixed) and names the branch', () => {
    const a = ask('2.17.1');
    expect(a.vulnerabilities.map((v) => v.cve_id)).toEqual(['CVE-2026-90302', 'CVE-2026-90301']); // risk order
    const m = a.vulnerabilities.find((v) => v.cve_id === 'CVE-2026-90301')!.matched;
    expect(m).toHaveLength(1);
    expect(m[0]).toMatchObject({ introduced: '2.17.0', fixed: '2.17.2', advisory_id: 'GHSA-4r6w-x8vq-mc9j', range_type: 'ECOSYSTEM' });
    expect(m[0]!.why).toContain('< fixed 2.17.2');
  });
  it('treats fixed as exclusive and last_affected as inclusive', () => {
    expect(ask('2.17.2').vulnerabilities.map((v) => v.cve_id)).toEqual(['CVE-2026-90302']);
    expect(ask('2.18.1').vulnerabilities.find((v) => v.cve_id === 'CVE-2026-90301')!.matched[0]).toMatchObject({ last_affected: '2.18.1' });
    expect(ask('2.18.2').vulnerabilities.map((v) => v.cve_id)).toEqual(['CVE-2026-90302']);
  });
  it('keeps an introduced-only branch open to every later version', () => {
    expect(ask('9.0.0').vulnerabilities.map((v) => v.cve_id)).toEqual(['CVE-2026-90301']);
  });
  it('says when no fixed version clears every match', () => {
    const a = ask('2.18.0');
    expect(a.upgrade).toEqual([{ ecosystem: 'PyPI', to: null, statement: expect.stringContaining('No fixed version'), also_affected_by: [] }]);
  });
  it('gives the smallest fix that clears every match', () => {
    const a = ask('2.16.5');
    expect(a.vulnerabilities.map((v) => v.cve_id)).toEqual(['CVE-2026-90302']);
    expect(a.upgrade[0]).toMatchObject({ to: '2.19.0', also_affected_by: ['CVE-2026-90301'] });
    // 2.16.0 is still inside GHSA-q3vc, and 2.19.0 inside GHSA-4r6w's open branch.
    expect(ask('2.15.0').upgrade[0]!.to).toBeNull();
  });
  it('refuses a version PEP 440 cannot read instead of answering "not affected"', () => {
    expect(() => ask('not-a-version')).toThrow(VersionSyntaxError);
  });
  it('lists every advisory with its ranges when no version is asked', () => {
    const list = listAdvisories(index, { ecosystem: 'pypi', name: 'mlflow', version: null });
    expect(list.advisories.map((a) => [a.cve_id, a.fixed_branches!.length])).toEqual([['CVE-2026-90302', 1], ['CVE-2026-90301', 4]]);
  });
});

describe('limit, several branches in one range, GIT, versions lists', async () => {
  const index = await indexOf([
    { record: osv('GO-T-1', [{ package: { ecosystem: 'Go', name: 'example.com/m' }, ranges: [range('SEMVER', ['introduced', '0'], ['fixed', '1.2.0'], ['introduced', '1.3.0'], ['fixed', '1.3.4'])] }]), cve: 'CVE-2000-0001' },
    { record: osv('GHSA-T-2', [{ package: { ecosystem: 'npm', name: 'lim' }, ranges: [range('ECOSYSTEM', ['introduced', '2.0.0-beta.1'], ['limit', '2.0.0'])] }]), cve: 'CVE-2000-0002' },
    { record: osv('OSV-T-3', [{ package: { ecosystem: 'npm', name: 'gitonly' }, ranges: [{ type: 'GIT', repo: 'https://example.com/r', events: [{ introduced: '0' }, { fixed: 'abc123' }] }] }]), cve: 'CVE-2000-0003' },
    { record: osv('DEBIAN-T-4', [{ package: { ecosystem: 'Debian:12', name: 'openssl' }, ranges: [range('ECOSYSTEM', ['introduced', '0'], ['fixed', '3.0.11-1~deb12u2'])], versions: ['3.0.9-1'] }, { package: { ecosystem: 'Debian:11', name: 'openssl' }, ranges: [range('ECOSYSTEM', ['introduced', '0'], ['fixed', '1.1.1w-0+deb11u2'])] }]), cve: 'CVE-2000-0004' },
    { record: osv('PYSEC-T-5', [{ package: { ecosystem: 'PyPI', name: 'listed' }, versions: ['1.0', '1.1'] }]), cve: 'CVE-2000-0005' },
    { record: osv('GHSA-T-6', [{ package: { ecosystem: 'npm', name: 'badbound' }, ranges: [range('ECOSYSTEM', ['introduced', '0'], ['fixed', 'not.semver'])] }]), cve: 'CVE-2000-0006' },
  ]);

  it('evaluates every introduced/fixed pair of one range (Go SEMVER, v prefix accepted)', () => {
    expect(checkVersion(index, { ecosystem: 'Go', name: 'example.com/m', version: 'v1.1.9' }).affected).toBe(true);
    expect(checkVersion(index, { ecosystem: 'Go', name: 'example.com/m', version: 'v1.2.5' }).affected).toBe(false);
    const a = checkVersion(index, { ecosystem: 'Go', name: 'example.com/m', version: '1.3.0' });
    expect(a.vulnerabilities[0]!.matched[0]).toMatchObject({ introduced: '1.3.0', fixed: '1.3.4', range_type: 'SEMVER' });
    expect(a.upgrade[0]!.to).toBe('1.3.4');
    expect(a.vulnerabilities[0]!.fixed_in).toBe('1.3.4');
  });
  it('stops a range at its limit', () => {
    expect(checkVersion(index, { ecosystem: 'npm', name: 'lim', version: '2.0.0-rc.1' }).vulnerabilities[0]!.matched[0]!.why).toContain('< limit 2.0.0');
    expect(checkVersion(index, { ecosystem: 'npm', name: 'lim', version: '2.0.0' }).affected).toBe(false);
    expect(checkVersion(index, { ecosystem: 'npm', name: 'lim', version: '1.9.9' }).affected).toBe(false);
  });
  it('reports GIT ranges as not comparable, not as "not affected"', () => {
    const a = checkVersion(index, { ecosystem: 'npm', name: 'gitonly', version: '1.0.0' });
    expect(a.affected).toBe(false);
    expect(a.not_comparable.map((g) => [g.reason.slice(0, 14), g.ecosystem, g.package_name, g.cves.map((c) => c.cve_id)])).toEqual([['only GIT (comm', 'npm', 'gitonly', ['CVE-2000-0003']]]);
    expect(a.not_affected_count).toBe(0);
  });
  it('matches explicit versions lists exactly, in the ecosystem order', () => {
    expect(checkVersion(index, { ecosystem: 'PyPI', name: 'listed', version: '1.1.0' }).vulnerabilities[0]!.matched[0]).toMatchObject({ range_type: 'VERSIONS' });
    expect(checkVersion(index, { ecosystem: 'PyPI', name: 'listed', version: '1.2' }).affected).toBe(false);
  });
  it('keeps distribution releases apart and gives an upgrade per release', () => {
    const d12 = checkVersion(index, { ecosystem: 'Debian:12', name: 'openssl', version: '3.0.11-1~deb12u1' });
    expect(d12.vulnerabilities.map((v) => v.ecosystem)).toEqual(['Debian:12']);
    expect(d12.upgrade).toEqual([expect.objectContaining({ ecosystem: 'Debian:12', to: '3.0.11-1~deb12u2' })]);
    const all = checkVersion(index, { ecosystem: 'debian', name: 'openssl', version: '1.0' });
    expect(all.upgrade.map((u) => [u.ecosystem, u.to])).toEqual([['Debian:11', '1.1.1w-0+deb11u2'], ['Debian:12', '3.0.11-1~deb12u2']]);
  });
  it('lists an advisory whose bound cannot be read as undetermined', () => {
    const a = checkVersion(index, { ecosystem: 'npm', name: 'badbound', version: '1.0.0' });
    expect(a.undetermined).toEqual([
      expect.objectContaining({ reason: expect.stringContaining('"not.semver"'), ecosystem: 'npm', package_name: 'badbound', cves: [expect.objectContaining({ cve_id: 'CVE-2000-0006' })] }),
    ]);
  });
});

describe('GHSA ecosystems ordered as SemVer (Hex, SwiftURL, GitHub Actions) and Pub (build metadata counts)', async () => {
  const index = await indexOf([
    { record: osv('GHSA-T-7', [{ package: { ecosystem: 'Hex', name: 'plug' }, ranges: [range('ECOSYSTEM', ['introduced', '0'], ['fixed', '1.10.4'])] }]), cve: 'CVE-2000-0007' },
    { record: osv('GHSA-T-8', [{ package: { ecosystem: 'Pub', name: 'http' }, ranges: [range('ECOSYSTEM', ['introduced', '0'], ['fixed', '0.13.3+1'])] }]), cve: 'CVE-2000-0008' },
    { record: osv('GHSA-T-9', [{ package: { ecosystem: 'SwiftURL', name: 'github.com/apple/swift-nio-http2' }, ranges: [range('ECOSYSTEM', ['introduced', '1.0.0'], ['fixed', '1.19.2'])] }]), cve: 'CVE-2000-0009' },
    { record: osv('GHSA-T-10', [{ package: { ecosystem: 'GitHub Actions', name: 'tj-actions/changed-files' }, ranges: [range('ECOSYSTEM', ['introduced', '0'], ['fixed', '46.0.1'])] }]), cve: 'CVE-2000-0010' },
  ]);
  const affected = (ecosystem: string, name: string, version: string) => checkVersion(index, { ecosystem, name, version }).affected;

  it('judges each by its order instead of answering "undetermined"', () => {
    expect(affected('Hex', 'plug', '1.10.3')).toBe(true);
    expect(affected('Hex', 'plug', '1.10.4')).toBe(false);
    expect(affected('SwiftURL', 'github.com/apple/swift-nio-http2', '1.19.1')).toBe(true);
    expect(affected('SwiftURL', 'github.com/apple/swift-nio-http2', '0.9.0')).toBe(false);
    expect(affected('GitHub Actions', 'tj-actions/changed-files', 'v45.0.0')).toBe(true);
    expect(affected('GitHub Actions', 'tj-actions/changed-files', '46.0.1')).toBe(false);
  });
  it('orders Pub build metadata after the release it decorates', () => {
    expect(affected('Pub', 'http', '0.13.3')).toBe(true);
    expect(affected('Pub', 'http', '0.13.3+1')).toBe(false);
    expect(affected('Pub', 'http', '0.13.3+2')).toBe(false);
  });
});

describe('a range whose events are out of version order is walked sorted, as the OSV schema evaluates it', async () => {
  const index = await indexOf([
    { record: osv('PYSEC-T-11', [{ package: { ecosystem: 'PyPI', name: 'walked' }, ranges: [range('ECOSYSTEM', ['introduced', '1.10'], ['fixed', '1.10.3'], ['introduced', '0'], ['fixed', '1.9.2'])] }]), cve: 'CVE-2000-0011' },
    { record: osv('PYSEC-T-12', [{ package: { ecosystem: 'PyPI', name: 'reopened' }, ranges: [range('ECOSYSTEM', ['introduced', '1.0'], ['introduced', '2.0'], ['fixed', '2.5'])] }]), cve: 'CVE-2000-0012' },
  ]);
  const affected = (name: string, version: string) => checkVersion(index, { ecosystem: 'PyPI', name, version }).affected;

  it('pairs each introduced with the next fix by version', () => {
    expect(affected('walked', '1.9.1')).toBe(true);
    expect(affected('walked', '1.9.5')).toBe(false);
    expect(affected('walked', '1.10.1')).toBe(true);
    expect(affected('walked', '1.10.3')).toBe(false);
  });
  it('ends a range reopened by a second introduced at its fix', () => {
    expect(affected('reopened', '1.5')).toBe(true);
    expect(affected('reopened', '2.7')).toBe(false);
  });
});

describe('Ubuntu releases and their Ubuntu Pro (ESM) records', async () => {
  // Canonical's OSV files a fix shipped through ESM under `Ubuntu:Pro:<release>:LTS`; past the
  // end of standard support every new fix is one.
  const pkg = (ecosystem: string) => ({ ecosystem, name: 'openssl' });
  const index = await indexOf([
    { record: osv('UBUNTU-CVE-2026-0001', [{ package: pkg('Ubuntu:18.04:LTS'), ranges: [range('ECOSYSTEM', ['introduced', '0'], ['fixed', '1.1.1-1ubuntu2.1~18.04.20'])] }]), cve: 'CVE-2026-0001' },
    { record: osv('UBUNTU-CVE-2026-0002', [{ package: pkg('Ubuntu:Pro:18.04:LTS'), ranges: [range('ECOSYSTEM', ['introduced', '0'], ['fixed', '1.1.1-1ubuntu2.1~18.04.23+esm5'])] }]), cve: 'CVE-2026-0002' },
    { record: osv('UBUNTU-CVE-2026-0003', [{ package: pkg('Ubuntu:Pro:FIPS:18.04:LTS'), ranges: [range('ECOSYSTEM', ['introduced', '0'], ['fixed', '1.1.1-1ubuntu2.fips.2.1~18.04.24'])] }]), cve: 'CVE-2026-0003' },
    { record: osv('UBUNTU-CVE-2026-0004', [{ package: pkg('Ubuntu:Pro:16.04:LTS'), ranges: [range('ECOSYSTEM', ['introduced', '0'], ['fixed', '1.1.1-1ubuntu2.1~18.04.23+esm5'])] }]), cve: 'CVE-2026-0004' },
  ]);

  it('an Ubuntu release finds its Pro records too, not those of FIPS builds or other releases (18.04 found no ESM fix)', () => {
    const a = checkVersion(index, { ecosystem: 'Ubuntu:18.04', name: 'openssl', version: '1.1.1-1ubuntu2.1~18.04.23' });
    expect(a.vulnerabilities.map((v) => [v.cve_id, v.ecosystem])).toEqual([['CVE-2026-0002', 'Ubuntu:Pro:18.04:LTS']]);
    expect(a.upgrade).toEqual([expect.objectContaining({ ecosystem: 'Ubuntu:Pro:18.04:LTS', to: '1.1.1-1ubuntu2.1~18.04.23+esm5' })]);
    expect(a.not_affected_count).toBe(1);
    const older = checkVersion(index, { ecosystem: 'Ubuntu:18.04', name: 'openssl', version: '1.1.1-1ubuntu2.1~18.04.19' });
    expect(older.vulnerabilities.map((v) => v.cve_id).sort()).toEqual(['CVE-2026-0001', 'CVE-2026-0002']);
    // The Pro lineage asked by name finds its own records only, as before.
    const pro = checkVersion(index, { ecosystem: 'Ubuntu:Pro:18.04', name: 'openssl', version: '1.1.1-1ubuntu2.1~18.04.19' });
    expect(pro.vulnerabilities.map((v) => v.cve_id)).toEqual(['CVE-2026-0002']);
  });
});
