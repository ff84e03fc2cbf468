/**
 * The filter rules every reader shares (lib/changes/model.ts): what a filter text may hold, and
 * how a change is matched when a stored filter predates a rule.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBValue } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { changeFilterSql } from '../../api/queries/changes.ts';
import { changeMatches, filterTextProblem, packageNames, searchTextProblem, type ChangeFilter, type ChangeRow } from '../../lib/changes/model.ts';
import { change, publishChanges } from '../pulse/changes-fixture.ts';

describe('search', () => {
  it('holds a letter or digit, in any script; punctuation alone is refused as /cves refuses it', () => {
    for (const raw of ['***', '!!!', ' - ', '...', '_', '¿?']) expect(searchTextProblem(raw), raw).toBe('holds no letter or digit to look for');
    for (const raw of ['x', '7', 'é', 'удалённое', '*cisco*', 'use-after-free']) expect(searchTextProblem(raw), raw).toBeNull();
    // The other rules of a filter text come first, in their own words.
    expect(searchTextProblem('   ')).toBe(filterTextProblem('   '));
    expect(searchTextProblem('a\u0001')).toBe('holds a control character');
  });

  it('a stored search with no word matches no change (it matched every one: alerts on everything)', () => {
    const row = change({ build_id: 'b', detected_at: '2026-11-24T09:00:00.000Z', kind: 'new_cve', cve_id: 'CVE-2026-0001', title: 'Exchange *** RCE', why: 'Published !!!' });
    expect(changeMatches({ search: '***' }, row)).toBe(false);
    expect(changeMatches({ search: '!!!' }, row)).toBe(false);
    expect(changeMatches({ search: 'exchange' }, row)).toBe(true);
  });
});

describe('package', () => {
  // OSV spells a distribution's release into the ecosystem (`Ubuntu:22.04:LTS`), and Maven's
  // names hold a colon (`group:artifact`): `packages` entries are `<ecosystem>:<name>`.
  const ubuntu = change({
    build_id: 'b', detected_at: '2026-11-24T09:00:00.000Z', kind: 'new_cve',
    ecosystems: ['Ubuntu:22.04:LTS', 'Ubuntu:Pro:14.04:LTS'], packages: ['Ubuntu:22.04:LTS:openssl', 'Ubuntu:Pro:14.04:LTS:openssl'],
  });
  const maven = change({
    build_id: 'b', detected_at: '2026-11-24T09:00:00.000Z', kind: 'new_cve',
    ecosystems: ['Maven'], packages: ['Maven:org.apache.logging.log4j:log4j-core'],
  });
  // PyPI names compare as PEP 503 normalises them, as every other reader of packages does
  // (lib/packages/names.ts): `Zope.Interface`, `zope_interface` and `zope-interface` are one.
  const pypi = change({
    build_id: 'b', detected_at: '2026-11-24T09:00:00.000Z', kind: 'new_cve',
    ecosystems: ['PyPI', 'npm'], packages: ['PyPI:Zope.Interface', 'npm:dot.ted'],
  });
  const cases: [ChangeFilter, ChangeRow, boolean][] = [
    [{ package: 'zope_interface' }, pypi, true],
    [{ ecosystem: 'pypi', package: 'ZOPE--interface' }, pypi, true],
    [{ ecosystem: 'PyPI', package: 'zope.interface' }, pypi, true],
    [{ ecosystem: 'PyPI', package: 'zopeinterface' }, pypi, false],
    // Only PyPI's: an npm name is its own.
    [{ package: 'dot-ted' }, pypi, false],
    [{ ecosystem: 'npm', package: 'dot_ted' }, pypi, false],
    [{ package: 'Dot.Ted' }, pypi, true],
    // A package alone (any ecosystem): it matched nothing of a release-bearing ecosystem.
    [{ package: 'openssl' }, ubuntu, true],
    [{ package: 'OpenSSL' }, ubuntu, true],
    [{ package: '22.04:LTS:openssl' }, ubuntu, false],
    [{ package: 'LTS:openssl' }, ubuntu, false],
    [{ package: 'ssl' }, ubuntu, false],
    [{ ecosystem: 'ubuntu:22.04:lts', package: 'openssl' }, ubuntu, true],
    [{ ecosystem: 'Ubuntu', package: 'openssl' }, ubuntu, false],
    [{ package: 'org.apache.logging.log4j:log4j-core' }, maven, true],
    [{ package: 'log4j-core' }, maven, false],
    [{ ecosystem: 'maven', package: 'org.apache.logging.log4j:LOG4J-CORE' }, maven, true],
  ];

  it('matches the name after any of the change\'s own ecosystems, whatever colons either holds; PyPI\'s as PEP 503 normalises it', () => {
    for (const [filter, row, expected] of cases) expect(changeMatches(filter, row), JSON.stringify(filter)).toBe(expected);
    expect(packageNames(ubuntu)).toEqual(['openssl', 'openssl']);
    // As the candidate index keys them (runs of -, _ and . as one -).
    expect(packageNames(maven)).toEqual(['org-apache-logging-log4j:log4j-core']);
    expect(packageNames(pypi)).toEqual(['zope-interface', 'dot-ted']);
  });

  it('the feed\'s SQL (api/queries/changes.ts) keeps exactly what changeMatches keeps', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'vulnintel-change-filter-'));
    const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
    try {
      const folder = await publishChanges(dataDir, 'b', [ubuntu, maven, pypi]);
      const connection = await instance.connect();
      for (const [filter] of cases) {
        const params = { values: [] as DuckDBValue[], add(value: DuckDBValue) { this.values.push(value); return `$${this.values.length}`; } };
        const where = changeFilterSql(filter, params as Parameters<typeof changeFilterSql>[1]);
        const reader = await connection.runAndReadAll(
          `SELECT change_id FROM read_parquet('${join(folder, 'changes.parquet')}') WHERE ${where.join(' AND ')} ORDER BY change_id`,
          params.values,
        );
        const expected = [ubuntu, maven, pypi].filter((c) => changeMatches(filter, c)).map((c) => c.change_id);
        expect(reader.getRowObjectsJson().map((r) => r.change_id), JSON.stringify(filter)).toEqual(expected);
      }
      connection.closeSync();
    } finally {
      instance.closeSync();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
