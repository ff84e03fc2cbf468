/**
 * The build's promises beyond scoring: a malformed input stops it with a message naming the
 * file and the record, nothing published is damaged, old snapshots are pruned, and
 * enrichment tables keep the contract's null-vs-[] distinction.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../cli/build/build.ts';
import { resolveBuildOptions } from '../../cli/commands/build.ts';
import { createBuildDatabase } from '../../cli/build/sql-steps.ts';
import { CliError, RawFormatError } from '../../lib/errors.ts';
import { readCurrentBuildId, snapshotsDir, tableReader } from '../../lib/snapshot-layout.ts';
import { nvdPage, nvdRecord, writeCorpus, NVD } from '../helpers/raw-corpus.ts';

process.env.VULNINTEL_QUIET = '1';

async function build(raw: string, data: string, keep = 3) {
  return buildSnapshot(await resolveBuildOptions({ raw, data, keep }));
}

async function query(dataDir: string, table: string, sql: string): Promise<Record<string, any>[]> {
  const id = await readCurrentBuildId(dataDir);
  const db = await (await DuckDBInstance.create(':memory:')).connect();
  await db.run(`CREATE VIEW t AS SELECT * FROM ${tableReader(join(snapshotsDir(dataDir), id!), table)}`);
  return (await db.runAndReadAll(sql)).getRowObjectsJson() as Record<string, any>[];
}

let raw: string;

beforeAll(async () => {
  raw = await writeCorpus({
    nvd: [
      { id: 'CVE-2025-20001', metrics: [{ version: '3.1', source: NVD, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', score: 9.8 }] },
      { id: 'CVE-2025-20002', vulnStatus: 'Received' },
    ],
    ghsa: [{ id: 'GHSA-aaaa-bbbb-cccc', cve: 'CVE-2025-20001', band: 'HIGH' }],
  });
  // An OSV entry with explicit versions and no range: ranges loaded, none on record → [].
  await writeFile(join(raw, 'ghsa', 'GHSA-dddd-eeee-ffff.json'), JSON.stringify({
    schema_version: '1.4.0', id: 'GHSA-dddd-eeee-ffff', modified: '2025-01-01T00:00:00Z', published: '2025-01-01T00:00:00Z',
    aliases: ['CVE-2025-20001'], summary: 'versions only', details: '', severity: [],
    affected: [{ package: { ecosystem: 'PyPI', name: 'versions-only' }, versions: ['1.0', '1.1'] }],
    references: [], database_specific: { severity: 'LOW', cwe_ids: [], github_reviewed: true },
  }));
  // Exploit data put where no parser looks: a folder no source owns, and the right folder under another name.
  const exploitRows = 'id,file,description,date_published,author,type,platform,port,date_added,date_updated,verified,codes,tags,aliases,screenshot_url,application_url,source_url\n1,exploits/x.py,"Thing RCE",2025-01-01,a,remote,linux,,2025-01-01,2025-01-01,1,CVE-2025-20001,,,,,\n';
  await mkdir(join(raw, 'exploits'), { recursive: true });
  await writeFile(join(raw, 'exploits', 'files_exploits.csv'), exploitRows);
  await mkdir(join(raw, 'exploitdb'), { recursive: true });
  await writeFile(join(raw, 'exploitdb', 'exploits.csv'), exploitRows);
  // A CVE 5 record naming a package: its ranges were never loaded → null.
  await mkdir(join(raw, 'cvelist'), { recursive: true });
  await writeFile(join(raw, 'cvelist', 'CVE-2025-20002.json'), JSON.stringify({
    dataType: 'CVE_RECORD', dataVersion: '5.1',
    cveMetadata: { cveId: 'CVE-2025-20002', assignerOrgId: 'o', assignerShortName: 'example', state: 'PUBLISHED', datePublished: '2025-02-01T00:00:00Z', dateUpdated: '2025-02-01T00:00:00Z' },
    containers: { cna: {
      providerMetadata: { orgId: 'o', shortName: 'example', dateUpdated: '2025-02-01T00:00:00Z' },
      descriptions: [{ lang: 'en', value: 'A package named by the CNA only.' }],
      affected: [{ vendor: 'example', product: 'libthing', packageName: 'libthing', collectionURL: 'https://pypi.org', versions: [{ version: '0', lessThan: '2.0', status: 'affected', versionType: 'semver' }] }],
      references: [{ url: 'https://example.com/x' }],
    } },
  }));
});

describe('publishing', () => {
  it('publishes atomically: CURRENT names a complete snapshot with its manifest', async () => {
    const data = await mkdtemp(join(tmpdir(), 'vulnintel-pub-'));
    const result = await build(raw, data);
    expect(await readCurrentBuildId(data)).toBe(result.buildId);
    const manifest = JSON.parse(await readFile(join(snapshotsDir(data), result.buildId, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ build_id: result.buildId, schema_version: 1 });
    expect(manifest.counts.cves).toBe(2);
    expect(manifest.sources.nvd.records).toBe(2);
    // Raw data no parser read is listed, with the names that would have been read.
    expect(manifest.counts.exploits).toBe(0);
    expect(manifest.skipped.total).toBe(2);
    expect(manifest.skipped.entries).toEqual([
      { path: 'exploits/', reason: 'not a source folder: none of its 1 file(s) is read', expected: ['exploitdb/files_exploits.csv'] },
      { path: 'exploitdb/exploits.csv', reason: 'not a name the exploitdb parser reads', expected: ['exploitdb/files_exploits.csv', 'exploitdb/files_exploits.csv.gz'] },
    ]);
    // No work folder is left behind.
    expect((await readdir(data)).filter((n) => n.startsWith('.build-'))).toEqual([]);
  });

  it('a malformed record stops the build naming the file and the record; the published snapshot is untouched', async () => {
    const data = await mkdtemp(join(tmpdir(), 'vulnintel-pub-'));
    const good = await build(raw, data);
    const broken = await writeCorpus({});
    const bad = nvdRecord({ id: 'CVE-2025-20003' });
    delete (bad as Record<string, unknown>).published;
    await mkdir(join(broken, 'nvd'), { recursive: true });
    await writeFile(join(broken, 'nvd', 'page-000007.json'), JSON.stringify(nvdPage([nvdRecord({ id: 'CVE-2025-20004' }), bad])));
    const error = await build(broken, data).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RawFormatError);
    expect((error as Error).message).toContain('page-000007.json');
    expect((error as Error).message).toContain('CVE-2025-20003');
    expect(await readCurrentBuildId(data)).toBe(good.buildId);
    expect(await readdir(snapshotsDir(data))).toEqual([good.buildId]);
    expect((await readdir(data)).filter((n) => n.startsWith('.build-'))).toEqual([]);
  });

  it('an impossible date stops the build naming the raw file and the CVE, not a staging file', async () => {
    const data = await mkdtemp(join(tmpdir(), 'vulnintel-pub-'));
    const good = await build(raw, data);
    const broken = await writeCorpus({ nvd: [{ id: 'CVE-2025-20005', published: '2024-02-30T08:15:33.227' }] });
    const error = await build(broken, data).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RawFormatError);
    expect((error as Error).message).toBe(`${join(broken, 'nvd', 'page-000000.json')}: record CVE-2025-20005: unreadable published ("2024-02-30T08:15:33.227"): day 30 does not exist in 2024-02`);
    expect(await readCurrentBuildId(data)).toBe(good.buildId);
    expect(await readdir(snapshotsDir(data))).toEqual([good.buildId]);
  });

  it('malformed JSON names the file', async () => {
    const data = await mkdtemp(join(tmpdir(), 'vulnintel-pub-'));
    const broken = await writeCorpus({});
    await mkdir(join(broken, 'kev'), { recursive: true });
    await writeFile(join(broken, 'kev', 'known_exploited_vulnerabilities.json'), '{"vulnerabilities": [');
    const error = await build(broken, data).catch((e: unknown) => e);
    expect((error as Error).message).toContain('known_exploited_vulnerabilities.json');
    expect(await readCurrentBuildId(data)).toBeNull();
  });

  it('refuses to publish from a raw folder without CVE records, keeping the published snapshot', async () => {
    const data = await mkdtemp(join(tmpdir(), 'vulnintel-pub-'));
    const good = await build(raw, data);
    const empty = await writeCorpus({ epss: [['CVE-2025-20001', 0.5]] });
    const error = await build(empty, data).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/no CVE records in .*nothing published/);
    expect(await readCurrentBuildId(data)).toBe(good.buildId);
    expect((await readdir(data)).filter((n) => n.startsWith('.build-'))).toEqual([]);
  });

  it('names a --raw that is no folder, keeping the published snapshot', async () => {
    const data = await mkdtemp(join(tmpdir(), 'vulnintel-pub-'));
    const good = await build(raw, data);
    const missing = join(data, 'no-such-raw');
    expect(((await build(missing, data).catch((e: unknown) => e)) as Error).message).toBe(
      `--raw ${missing}: no such folder (run \`vulnintel fetch --raw ${missing}\` first): nothing published`,
    );
    const file = join(data, 'a-file');
    await writeFile(file, 'x');
    expect(((await build(file, data).catch((e: unknown) => e)) as Error).message).toMatch(/^--raw .*a-file: not a folder/);
    expect(await readCurrentBuildId(data)).toBe(good.buildId);
    expect((await readdir(data)).filter((n) => n.startsWith('.build-'))).toEqual([]);
  });

  it('one build at a time per data folder: a second is refused at once naming the folder and the holder, and publishes nothing', async () => {
    const data = await mkdtemp(join(tmpdir(), 'vulnintel-pub-'));
    const lockFile = join(data, '_build.lock');
    // Another live process holds the folder.
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      await writeFile(lockFile, `${other.pid}\n`);
      const refused = await build(raw, data).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(CliError);
      expect((refused as Error).message).toBe(
        `${data}: another vulnintel build (pid ${other.pid}) is building into this data folder: nothing published; run again once it has finished (lock file ${lockFile})`,
      );
      expect(await readCurrentBuildId(data)).toBeNull();
    } finally {
      other.kill();
    }
    // Its owner gone, the lock is stale and taken over.
    await new Promise((r) => (other.exitCode === null && other.signalCode === null ? other.once('exit', r) : r(null)));
    const first = build(raw, data);
    // Two builds started together both published and both recorded the same changes.
    // Until the first has taken the lock over: the dead process's stale file is there already.
    const heldByUs = () => existsSync(lockFile) && readFileSync(lockFile, 'utf8').trim() === String(process.pid);
    while (!heldByUs()) await new Promise((r) => setTimeout(r, 5));
    const second = await build(raw, data).catch((e: unknown) => e);
    expect((second as Error).message).toMatch(new RegExp(`another vulnintel build \\(pid ${process.pid}\\)`));
    const published = await first;
    expect(await readCurrentBuildId(data)).toBe(published.buildId);
    expect(await readdir(snapshotsDir(data))).toEqual([published.buildId]);
    expect(existsSync(lockFile)).toBe(false);
  });

  it('a DuckDB failure opening or preparing the build database is a one-line CliError; nothing published is touched', async () => {
    const data = await mkdtemp(join(tmpdir(), 'vulnintel-pub-'));
    const good = await build(raw, data);
    // The published snapshot the build compares with, damaged: DuckDB's error escaped uncaught
    // (as an out-of-memory one did under --memory-limit 1KB), with a stack.
    await writeFile(join(snapshotsDir(data), good.buildId, 'advisories.parquet'), 'not parquet');
    const damaged = await build(raw, data).catch((e: unknown) => e);
    expect(damaged).toBeInstanceOf(CliError);
    expect((damaged as Error).message).toMatch(new RegExp(`^reading the published snapshot ${good.buildId} to compare with failed: .*advisories\\.parquet`));
    // One line (DuckDB's "LINE 1: …" context of the build's own SQL followed), saying what to do.
    expect((damaged as Error).message).not.toContain('\n');
    expect((damaged as Error).message).toMatch(new RegExp(`: nothing published; restore ${join(snapshotsDir(data), good.buildId)}, or write the id of a sound snapshot in ${join(data, 'CURRENT')}$`));
    expect(await readCurrentBuildId(data)).toBe(good.buildId);
    expect((await readdir(data)).filter((n) => n.startsWith('.build-') || n === '_build.lock')).toEqual([]);
    const refused = await createBuildDatabase(data, { memoryLimit: 'plenty' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CliError);
    expect((refused as Error).message).toMatch(/^opening the build database \(threads 2, memory limit plenty\) failed: /);
  });

  it('removes the work folder a killed build left behind, under the lock; the published snapshot stays', async () => {
    const data = await mkdtemp(join(tmpdir(), 'vulnintel-pub-'));
    const good = await build(raw, data);
    // What a build killed by SIGTERM or SIGKILL leaves: its work folder, staged files and all.
    const abandoned = join(data, '.build-20200101T000000Z-dead');
    await mkdir(join(abandoned, 'stage', 'nvd_cve'), { recursive: true });
    await writeFile(join(abandoned, 'stage', 'nvd_cve', 'lane0.ndjson'), 'x'.repeat(1000));
    // A refused build (another holds the folder) touches nothing: that folder may be the holder's.
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      await writeFile(join(data, '_build.lock'), `${other.pid}\n`);
      await expect(build(raw, data)).rejects.toThrow(/another vulnintel build/);
      expect(existsSync(abandoned)).toBe(true);
    } finally {
      other.kill();
    }
    await new Promise((r) => (other.exitCode === null && other.signalCode === null ? other.once('exit', r) : r(null)));
    const next = await build(raw, data);
    // It stayed there, build after build, before.
    expect((await readdir(data)).filter((n) => n.startsWith('.build-'))).toEqual([]);
    expect((await readdir(snapshotsDir(data))).sort()).toEqual([good.buildId, next.buildId].sort());
    expect(await readCurrentBuildId(data)).toBe(next.buildId);
  });

  it('keeps the newest 3 snapshots and always the published one', async () => {
    const data = await mkdtemp(join(tmpdir(), 'vulnintel-pub-'));
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await build(raw, data, 3)).buildId);
    const left = (await readdir(snapshotsDir(data))).sort();
    expect(left).toEqual(ids.slice(1).sort());
    expect(await readCurrentBuildId(data)).toBe(ids[3]);
  });
});

describe('build parameters', () => {
  it('reads <raw>/_build.json saved with a UTF-8 byte order mark', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vulnintel-raw-'));
    await writeFile(join(dir, '_build.json'), `\uFEFF${JSON.stringify({ relatedProductThreshold: 7, missionWellbeing: 'high' })}`);
    expect(await resolveBuildOptions({ raw: dir, data: dir })).toMatchObject({ relatedProductThreshold: 7, missionWellbeing: 'high' });
  });
});

describe('enrichment tables', () => {
  it('fixed_branches is a list for OSV ranges, [] for an OSV package without ranges, null when never loaded', async () => {
    const data = await mkdtemp(join(tmpdir(), 'vulnintel-pub-'));
    await build(raw, data);
    const rows = await query(data, 'affected_packages', `SELECT package_name, source, fixed_branches, fixed_version FROM t ORDER BY package_name`);
    const byName = Object.fromEntries(rows.map((r) => [r.package_name, r]));
    expect(byName['pkg-ghsa-aaaa-bbbb-cccc']).toMatchObject({ source: 'osv', fixed_version: '1.2.3' });
    expect(byName['pkg-ghsa-aaaa-bbbb-cccc']!.fixed_branches).toEqual([
      { introduced: '0', fixed: '1.2.3', last_affected: null, source: 'ghsa', advisory_id: 'GHSA-aaaa-bbbb-cccc', range_type: 'ECOSYSTEM', limit: null },
    ]);
    expect(byName['versions-only']!.fixed_branches).toEqual([]);
    expect(byName['versions-only']!.fixed_version).toBeNull();
    expect(byName['libthing']).toMatchObject({ source: 'cve_list', fixed_branches: null, fixed_version: null });
  });
});
