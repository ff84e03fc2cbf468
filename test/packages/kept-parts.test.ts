/**
 * What lib/packages keeps per package between questions (the rows named by CVE records only,
 * the sorted fixes, the sorted explicit version lists): answers must be exactly those of a
 * fresh judgement — order by risk with ties in row order, upgrades over fixes spelled apart,
 * explicit lists matched by the order's equality — however many times and in whatever order
 * the questions come.
 */
import { describe, expect, it } from 'vitest';
import { checkVersion } from '../../lib/packages/check.ts';
import { PackageIndex } from '../../lib/packages/index.ts';
import { jsonBytesReusing } from '../../lib/json-reuse.ts';

function row(cve: string, risk: number, branches: unknown[] | null, versions: string[] = [], ecosystem = 'PyPI'): Record<string, unknown> {
  return {
    cve_id: cve, ecosystem, package_name: 'demo', purl: null, source: branches === null ? 'cve_list' : 'osv',
    advisory_ids: branches === null ? [] : [`GHSA-${cve}`], fixed_branches: branches, versions,
    service_risk: risk, service_score: risk / 10, service_severity: 'HIGH', score_assessed: true, kev: false, epss_score: null,
  };
}

const branch = (introduced: string | null, fixed: string | null, extra: Record<string, string> = {}) => ({
  introduced, fixed, last_affected: null, limit: null, range_type: 'ECOSYSTEM', advisory_id: 'A', source: 'osv', ...extra,
});

const rows = [
  row('CVE-2000-0001', 50, null),
  row('CVE-2000-0002', 70, [branch('0', '2.0')]),
  row('CVE-2000-0003', 50, [branch('0', 'not a version')]),
  row('CVE-2000-0004', 90, null),
  row('CVE-2000-0005', 50, null),
  row('CVE-2000-0006', 60, [branch('1.0', '2.0.0')]),
  row('CVE-2000-0007', 40, [], ['1.5', '1.7.0', 'junk!']),
  row('CVE-2000-0003', 50, null),
  row('CVE-2000-0008', 10, [branch('1.0', 'not a version')]),
];

describe('answers from kept per-package parts', async () => {
  const index = PackageIndex.fromRows(rows.map((r) => ({ ...r })));

  it('groups the kept undetermined rows and those of the version by reason, each by risk then row order, the groups by their riskiest', () => {
    const answer = checkVersion(index, { ecosystem: 'PyPI', name: 'demo', version: '1.5' });
    expect(answer.undetermined.map((g) => [g.reason.slice(0, 24), g.package_name, g.cves.map((c) => c.cve_id)])).toEqual([
      ['no advisory version rang', 'demo', ['CVE-2000-0004', 'CVE-2000-0001', 'CVE-2000-0003', 'CVE-2000-0005']],
      ['the advisory\'s bound "no', 'demo', ['CVE-2000-0003', 'CVE-2000-0008']],
    ]);
    expect(answer.undetermined[1]!.cves[0]).toEqual({ cve_id: 'CVE-2000-0003', service_risk: 50, service_severity: 'HIGH', kev: false, epss_score: null, advisory_ids: ['GHSA-CVE-2000-0003'] });
  });

  it('keeps a group of rows without ranges apart from one of the version that comes first by risk', () => {
    const riskier = PackageIndex.fromRows([row('CVE-2001-0001', 20, null), row('CVE-2001-0002', 80, [branch('0', 'bad one')]), row('CVE-2001-0003', 30, null)].map((r) => ({ ...r })));
    const answer = checkVersion(riskier, { ecosystem: 'PyPI', name: 'demo', version: '1.0' });
    expect(answer.undetermined.map((g) => g.cves.map((c) => c.cve_id))).toEqual([['CVE-2001-0002'], ['CVE-2001-0003', 'CVE-2001-0001']]);
    expect(checkVersion(riskier, { ecosystem: 'PyPI', name: 'demo', version: '1.1' }).undetermined).toEqual(answer.undetermined);
  });

  it('matches an explicit list by the order\'s equality and skips the entries it cannot read', () => {
    const listed = checkVersion(index, { ecosystem: 'PyPI', name: 'demo', version: '1.7' });
    expect(listed.vulnerabilities.map((v) => v.cve_id)).toContain('CVE-2000-0007');
    expect(checkVersion(index, { ecosystem: 'PyPI', name: 'demo', version: '1.6' }).vulnerabilities.map((v) => v.cve_id)).not.toContain('CVE-2000-0007');
  });

  it('gives the first of equal fixes spelled apart as the upgrade, and each row its own fix', () => {
    const answer = checkVersion(index, { ecosystem: 'PyPI', name: 'demo', version: '1.5' });
    expect(answer.upgrade).toEqual([expect.objectContaining({ ecosystem: 'PyPI', to: '2.0' })]);
    expect(Object.fromEntries(answer.vulnerabilities.map((v) => [v.cve_id, v.fixed_in]))).toEqual({
      'CVE-2000-0002': '2.0', 'CVE-2000-0006': '2.0.0', 'CVE-2000-0007': null,
    });
    expect(checkVersion(index, { ecosystem: 'PyPI', name: 'demo', version: '2.0' }).affected).toBe(false);
  });

  it('answers the same bytes however often and in whatever order it is asked', async () => {
    const versions = ['0.1', '1.0', '1.5', '1.7.0', '2.0', '2.0.0', '3'];
    const first = versions.map((v) => jsonBytesReusing(checkVersion(index, { ecosystem: 'PyPI', name: 'demo', version: v })));
    const again = [...versions].reverse().map((v) => jsonBytesReusing(checkVersion(index, { ecosystem: 'pypi', name: 'DEMO', version: v }))).reverse();
    expect(again.map((s) => JSON.parse(s.toString()).vulnerabilities)).toEqual(first.map((s) => JSON.parse(s.toString()).vulnerabilities));
    const fresh = PackageIndex.fromRows(rows.map((r) => ({ ...r })));
    expect(versions.map((v) => JSON.stringify(checkVersion(fresh, { ecosystem: 'PyPI', name: 'demo', version: v })))).toEqual(first.map((b) => b.toString()));
  });
});

describe('the scan groups the advisories it cannot compare', async () => {
  const { scanComponents } = await import('../../cli/scan/scan.ts');
  const { renderTable } = await import('../../cli/scan/render.ts');
  const index = PackageIndex.fromRows(rows.map((r) => ({ ...r })));
  const component = (ref: string, version: string) => ({ ref, name: 'demo', version, purl: `pkg:pypi/demo@${version}` });

  it('one group per package, reason and CVE list, naming every component it concerns', () => {
    // Below 1.0 the unreadable fix of CVE-2000-0008 is never reached: the same reason, fewer CVEs, another group.
    const result = scanComponents(index, [component('a', '1.5'), component('b', '0.5'), component('c', '1.6'), component('d', '0.5')]);
    expect(result.unjudged_advisories.map((g) => [g.reason.slice(0, 24), g.components, g.cves.map((c) => c.cve_id)])).toEqual([
      ['no advisory version rang', ['a', 'b', 'c', 'd'], ['CVE-2000-0004', 'CVE-2000-0001', 'CVE-2000-0003', 'CVE-2000-0005']],
      ['the advisory\'s bound "no', ['a', 'c'], ['CVE-2000-0003', 'CVE-2000-0008']],
      ['the advisory\'s bound "no', ['b', 'd'], ['CVE-2000-0003']],
    ]);
    const table = renderTable(result, { file: 'sbom.json', buildId: 'b', format: 'CycloneDX 1.6' });
    expect(table).toContain('Advisories that could not be compared (7, in 3 groups');
    expect(table).toContain('demo (PyPI, 4 components): 4 CVEs (CVE-2000-0004, CVE-2000-0001, CVE-2000-0003, CVE-2000-0005) — no advisory version ranges');
  });
});

describe('the index read from packages.ndjson lines', () => {
  const named = (name: string, cve: string) => JSON.stringify({ ...row(cve, 50, [branch('0', '2.0')]), package_name: name });
  const lines = [named('plain', 'CVE-2001-0001'), named('we"ird\\pkg', 'CVE-2001-0002'), named('ctl\u001fname', 'CVE-2001-0003'), named('Zope.Interface', 'CVE-2001-0004'), named('ümlaut', 'CVE-2001-0005')];
  const text = `${lines.join('\n')}\n`;

  it('narrows by name without parsing every row, names with escapes included', () => {
    for (const name of ['we"ird\\pkg', 'ctl\u001fname', 'ümlaut', 'plain']) {
      const index = PackageIndex.fromLines(text, [name]);
      expect(index.rowCount, name).toBe(1);
      expect(index.rowsOf('PyPI', name).map((r) => r.package_name)).toEqual([name]);
    }
    expect(PackageIndex.fromLines(text, ['zope-interface']).rowsOf('PyPI', 'zope_interface')).toHaveLength(1);
    expect(PackageIndex.fromLines(text, ['absent']).rowCount).toBe(0);
    expect(PackageIndex.fromLines(text).rowCount).toBe(5);
  });
});
