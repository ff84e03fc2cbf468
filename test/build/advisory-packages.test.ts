/**
 * advisory_packages (sql/05_side_tables.sql): the packages and ranges of the OSV/GHSA advisories
 * that name no CVE of the snapshot, each scored from the advisory alone by DESIGN §5 (its CVSS
 * vector, else its severity band; never escalated), and what the package index makes of them:
 * a version they hold is affected, never "not affected".
 */
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { byRisk, checkVersion } from '../../lib/packages/check.ts';
import { PackageIndex } from '../../lib/packages/index.ts';
import { readCurrentBuildId, snapshotsDir, tableReader } from '../../lib/snapshot-layout.ts';
import { writeCorpus, type Corpus } from '../helpers/raw-corpus.ts';
import { buildCorpus } from '../helpers/sample-snapshot.ts';

const corpus: Corpus = {
  nvd: [{ id: 'CVE-2024-30001' }, { id: 'CVE-2024-30002' }],
  cve5: [{ id: 'CVE-2024-30002', state: 'REJECTED', cnaDateUpdated: '2024-05-01T00:00:00.000Z' }],
  ghsa: [
    // Names a CVE of the snapshot: its packages are that CVE's (affected_packages).
    { id: 'GHSA-aaaa-aaaa-aaaa', cve: 'CVE-2024-30001', band: 'HIGH' },
    // Names a rejected CVE of the snapshot: the rejection stands, as before.
    { id: 'GHSA-ffff-ffff-ffff', cve: 'CVE-2024-30002', band: 'HIGH' },
    // Names only a CVE neither NVD nor the CVE List has published.
    { id: 'GHSA-bbbb-bbbb-bbbb', cve: 'CVE-2099-00001', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', band: 'CRITICAL' },
    // No CVE alias: a band only; a CVSS v4 vector only; no severity at all.
    { id: 'GHSA-cccc-cccc-cccc', band: 'LOW' },
    { id: 'GHSA-gggg-gggg-gggg', vector: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N', band: 'CRITICAL' },
    { id: 'GHSA-dddd-dddd-dddd', band: null },
    // Withdrawn: a tombstone, judged for nothing.
    { id: 'GHSA-eeee-eeee-eeee', band: 'HIGH', withdrawn: '2025-01-02T00:00:00Z' },
    // Twins, each naming the other: one vulnerability, one row with the ranges of both.
    { id: 'GHSA-hhhh-hhhh-hhhh', band: 'HIGH', aliases: ['MAL-2024-0001'], packageName: 'twin-pkg' },
    { id: 'MAL-2024-0001', band: null, aliases: ['GHSA-hhhh-hhhh-hhhh'], packageName: 'twin-pkg' },
    // Twins where only one names the other.
    { id: 'GHSA-iiii-iiii-iiii', band: 'LOW', aliases: ['MAL-2024-0003'], packageName: 'solo-pkg' },
    { id: 'MAL-2024-0003', band: 'MODERATE', packageName: 'solo-pkg' },
    // The twin of a record that names a CVE of the snapshot, and the twin of that twin: that CVE's.
    { id: 'MAL-2024-0002', band: null, aliases: ['GHSA-aaaa-aaaa-aaaa'], packageName: 'pkg-ghsa-aaaa-aaaa-aaaa' },
    { id: 'PYSEC-2024-0002', band: null, aliases: ['MAL-2024-0002'], packageName: 'pkg-ghsa-aaaa-aaaa-aaaa' },
    // A chain: the MAL record names both others, neither names it.
    { id: 'GHSA-jjjj-jjjj-jjjj', band: 'HIGH', packageName: 'chain-pkg' },
    { id: 'MAL-2024-0010', band: null, aliases: ['GHSA-jjjj-jjjj-jjjj', 'PYSEC-2024-0010'], packageName: 'chain-pkg' },
    { id: 'PYSEC-2024-0010', band: null, packageName: 'chain-pkg' },
    // Two records of one CVE not published yet, naming each other nowhere else.
    { id: 'GHSA-kkkk-kkkk-kkkk', cve: 'CVE-2099-00002', band: 'LOW', packageName: 'shared-pkg' },
    { id: 'PYSEC-2024-0020', cve: 'CVE-2099-00002', band: null, packageName: 'shared-pkg' },
    // A CVSS vector and a band of another database than GHSA: not what DESIGN §5 scores by.
    { id: 'RUSTSEC-2024-0050', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', band: 'CRITICAL', packageName: 'rust-pkg' },
  ],
};

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
let rows: Row[] = [];
let index: PackageIndex;

beforeAll(async () => {
  const { dataDir } = await buildCorpus(await writeCorpus(corpus));
  const snapshot = join(snapshotsDir(dataDir), (await readCurrentBuildId(dataDir))!);
  const db = await (await DuckDBInstance.create(':memory:')).connect();
  rows = (await db.runAndReadAll(`SELECT * FROM ${tableReader(snapshot, 'advisory_packages')} ORDER BY advisory_id`)).getRowObjectsJson() as Row[];
  for (const table of ['advisory_packages', 'affected_packages', 'cves']) await db.run(`CREATE VIEW ${table} AS SELECT * FROM ${tableReader(snapshot, table)}`);
  index = await PackageIndex.load(async (sql) => ((await db.runAndReadAll(sql)).getColumns()[0] ?? []) as string[]);
}, 120_000);

describe('advisory_packages', () => {
  it('holds the live advisories that name no CVE of the snapshot, and only those', () => {
    expect(rows.map((r) => r.advisory_id)).toEqual([
      'GHSA-bbbb-bbbb-bbbb',
      'GHSA-cccc-cccc-cccc',
      'GHSA-dddd-dddd-dddd',
      'GHSA-gggg-gggg-gggg',
      'GHSA-hhhh-hhhh-hhhh',
      'GHSA-iiii-iiii-iiii',
      'GHSA-jjjj-jjjj-jjjj',
      'GHSA-kkkk-kkkk-kkkk',
      'RUSTSEC-2024-0050',
    ]);
    expect(rows[0]).toMatchObject({
      advisory_ids: ['GHSA-bbbb-bbbb-bbbb'],
      ecosystem: 'npm',
      package_name: 'pkg-ghsa-bbbb-bbbb-bbbb',
      fixed_branches: [{ introduced: '0', fixed: '1.2.3', last_affected: null, source: 'ghsa', advisory_id: 'GHSA-bbbb-bbbb-bbbb', range_type: 'ECOSYSTEM', limit: null }],
      fixed_version: '1.2.3',
    });
  });

  it('holds records tied by aliases (either way, through others) or by a CVE not published yet as one, with the ranges of all', () => {
    for (const [id, ids, name] of [
      ['GHSA-hhhh-hhhh-hhhh', ['GHSA-hhhh-hhhh-hhhh', 'MAL-2024-0001'], 'twin-pkg'],
      ['GHSA-iiii-iiii-iiii', ['GHSA-iiii-iiii-iiii', 'MAL-2024-0003'], 'solo-pkg'],
      ['GHSA-jjjj-jjjj-jjjj', ['GHSA-jjjj-jjjj-jjjj', 'MAL-2024-0010', 'PYSEC-2024-0010'], 'chain-pkg'],
      ['GHSA-kkkk-kkkk-kkkk', ['GHSA-kkkk-kkkk-kkkk', 'PYSEC-2024-0020'], 'shared-pkg'],
    ] as const) {
      const row = rows.find((r) => r.advisory_id === id)!;
      expect(row).toMatchObject({ advisory_ids: ids, package_name: name });
      expect(row.fixed_branches.map((b: Row) => b.advisory_id)).toEqual(ids);
      expect(row.fixed_branches.map((b: Row) => b.source)).toEqual(ids.map((i) => i.split('-')[0]!.toLowerCase()));
    }
  });

  it('scores each by DESIGN §5 from the advisory alone: its vector, else its band, nothing escalated', () => {
    const figures = Object.fromEntries(rows.map((r) => [r.advisory_id, [r.service_score, r.service_severity, r.score_assessed, r.service_risk]]));
    expect(figures).toEqual({
      // CVSS 3.1 9.8; risk 100 × (0.45 × 0.98 + 0.15 × 0.5): network, low complexity, no privileges, no interaction.
      'GHSA-bbbb-bbbb-bbbb': [9.8, 'CRITICAL', true, 51.6],
      // Band LOW = 2.0; no vector: automatable 0.
      'GHSA-cccc-cccc-cccc': [2, 'LOW', true, 9],
      // No vector, no band: not assessed.
      'GHSA-dddd-dddd-dddd': [0, 'NONE', false, 0],
      // CVSS 4.0 9.3 (its vector first, not the band's 9.0); 100 × (0.45 × 0.93 + 0.075) = 49.35, half up.
      'GHSA-gggg-gggg-gggg': [9.3, 'CRITICAL', true, 49.4],
      // A group is scored by its GHSA record's evidence, as a CVE is: HIGH 7.5; LOW 2.0 (not the
      // MAL twin's MODERATE).
      'GHSA-hhhh-hhhh-hhhh': [7.5, 'HIGH', true, 33.8],
      'GHSA-iiii-iiii-iiii': [2, 'LOW', true, 9],
      'GHSA-jjjj-jjjj-jjjj': [7.5, 'HIGH', true, 33.8],
      'GHSA-kkkk-kkkk-kkkk': [2, 'LOW', true, 9],
      // No GHSA record: not assessed, whatever the RUSTSEC record states.
      'RUSTSEC-2024-0050': [0, 'NONE', false, 0],
    });
  });
});

describe('the package index', () => {
  it('answers a version such an advisory holds as affected, named by the advisory, with its upgrade', () => {
    const answer = checkVersion(index, { ecosystem: 'npm', name: 'pkg-ghsa-cccc-cccc-cccc', version: '1.0.0' });
    expect(answer.affected).toBe(true);
    expect(answer.vulnerabilities).toEqual([
      expect.objectContaining({ cve_id: null, advisory_ids: ['GHSA-cccc-cccc-cccc'], service_risk: 9, service_severity: 'LOW', kev: false, epss_score: null, fixed_in: '1.2.3' }),
    ]);
    expect(answer.upgrade).toEqual([expect.objectContaining({ to: '1.2.3' })]);
    expect(checkVersion(index, { ecosystem: 'npm', name: 'pkg-ghsa-cccc-cccc-cccc', version: '1.2.3' })).toMatchObject({ affected: false, not_affected_count: 1 });
  });

  it('answers twins once, naming both', () => {
    expect(checkVersion(index, { ecosystem: 'npm', name: 'twin-pkg', version: '1.0.0' }).vulnerabilities.map((v) => [v.cve_id, v.advisory_ids, v.matched.length])).toEqual([
      [null, ['GHSA-hhhh-hhhh-hhhh', 'MAL-2024-0001'], 2],
    ]);
  });

  it('orders advisories of equal figures by id, after the CVEs', () => {
    const found = ['chain-pkg', 'twin-pkg'].flatMap((name) => checkVersion(index, { ecosystem: 'npm', name, version: '1.0.0' }).vulnerabilities);
    expect(found.sort(byRisk).map((v) => v.advisory_ids[0])).toEqual(['GHSA-hhhh-hhhh-hhhh', 'GHSA-jjjj-jjjj-jjjj']);
    expect(found.reverse().sort(byRisk).map((v) => v.advisory_ids[0])).toEqual(['GHSA-hhhh-hhhh-hhhh', 'GHSA-jjjj-jjjj-jjjj']);
  });

  it('keeps an advisory that names a CVE of the snapshot (and its twins) under that CVE, and judges nothing for a withdrawn one or a rejected CVE', () => {
    expect(checkVersion(index, { ecosystem: 'npm', name: 'pkg-ghsa-aaaa-aaaa-aaaa', version: '1.0.0' }).vulnerabilities.map((v) => [v.cve_id, v.advisory_ids])).toEqual([
      ['CVE-2024-30001', ['GHSA-aaaa-aaaa-aaaa']],
    ]);
    for (const name of ['pkg-ghsa-eeee-eeee-eeee', 'pkg-ghsa-ffff-ffff-ffff']) {
      expect(checkVersion(index, { ecosystem: 'npm', name, version: '1.0.0' })).toMatchObject({ affected: false, not_affected_count: 0 });
    }
  });
});
