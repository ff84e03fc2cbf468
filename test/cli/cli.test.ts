/** The command line as a user runs it: the bin, its help, `sql`, and errors without stacks. */
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, cli } from '../helpers/cli.ts';
import { buildCorpus } from '../helpers/sample-snapshot.ts';
import { nvdPage, nvdRecord } from '../helpers/raw-corpus.ts';
import { FETCHERS } from '../../cli/fetch/registry.ts';
import { SOURCE_SUMMARIES } from '../../cli/fetch/source-summaries.ts';
import { readCurrentBuildId } from '../../lib/snapshot-layout.ts';

let dataDir: string;
beforeAll(async () => {
  dataDir = (await buildCorpus()).dataDir;
});

describe('vulnintel CLI', () => {
  it('--help lists every command', async () => {
    const { code, stdout } = await cli(['--help']);
    expect(code).toBe(0);
    for (const c of ['fetch', 'build', 'update', 'poll', 'serve', 'synth', 'sql']) expect(stdout).toMatch(new RegExp(`^\\s+${c}\\b`, 'm'));
  });

  it('fetch --help and update --help name every registered source, in fetch order, with what it fetches', async () => {
    const registered = Object.keys(FETCHERS);
    expect(Object.keys(SOURCE_SUMMARIES)).toEqual(registered);
    for (const command of ['fetch', 'update']) {
      const { code, stdout } = await cli([command, '--help']);
      expect(code).toBe(0);
      const listed = [...stdout.slice(stdout.indexOf('Sources (')).matchAll(/^ {2}(\S+) +(\S.*)$/gm)];
      expect(listed.map((m) => m[1])).toEqual(registered);
      for (const m of listed) {
        expect(m[2]).toBe(SOURCE_SUMMARIES[m[1] as keyof typeof SOURCE_SUMMARIES]);
        expect(m[2]!.length).toBeGreaterThan(20);
      }
    }
  });

  it('fetch, update and poll --help name NVD_API_KEY (DESIGN §2 environment equivalents)', async () => {
    for (const command of ['fetch', 'update', 'poll']) {
      const { code, stdout } = await cli([command, '--help']);
      expect(code, command).toBe(0);
      expect(stdout, command).toMatch(/^Environment: NVD_API_KEY, .*50 requests \/ 30 s instead of 5$/m);
    }
  });

  it('sql answers over the current snapshot, as JSON and CSV', async () => {
    const json = await cli(['sql', "select count(*) as n, count(*) filter (where status = 'rejected') as rejected from cves", '--data', dataDir, '--format', 'json']);
    expect(json.code).toBe(0);
    const [row] = JSON.parse(json.stdout) as Array<{ n: number; rejected: number }>;
    expect(row).toEqual({ n: 83, rejected: 3 });
    const csv = await cli(['sql', "select cve_id, service_score from cves where cve_id = 'CVE-2023-4966'", '--data', dataDir, '--format', 'csv']);
    expect(csv.stdout.trim().split('\n')).toEqual(['cve_id,service_score', 'CVE-2023-4966,8.5']);
  });

  it('an option\'s environment variable set to nothing is taken as unset: its default applies', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'vulnintel-blank-env-'));
    try {
      await symlink(dataDir, join(cwd, 'data'));
      // --data defaults to ./data; VULNINTEL_DATA= (an env file's blank line) was read as the
      // folder '' and refused.
      const run = await cli(['sql', '--format', 'csv', 'SELECT count(*) AS n FROM cves'], { cwd, env: { VULNINTEL_DATA: '', PORT: ' ' } });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toBe('n\n83\n');
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });

  it('sql shows control characters in its table as escapes; CSV quotes a field holding CR', async () => {
    const table = await cli(['sql', '--data', dataDir, "SELECT 'a' || chr(27) || ']0;owned' || chr(7) || 'b' AS x"]);
    expect(table.code).toBe(0);
    expect(table.stdout).not.toMatch(/[\u0007\u001b]/);
    const csv = await cli(['sql', '--data', dataDir, '--format', 'csv', "SELECT 'a' || chr(13) || 'b' AS x"]);
    expect(csv.stdout).toBe('x\n"a\rb"\n');
  });

  it('a reader that stops early (sql … | head) ends the command quietly: no EPIPE stack, status 141', async () => {
    const child = spawn(process.execPath, [BIN, 'sql', '--data', dataDir, '--format', 'csv', 'SELECT * FROM range(300000)'], {
      env: { ...process.env, VULNINTEL_QUIET: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // As `head -1` does: read the first chunk, then close the pipe.
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
    expect(stderr).toBe('');
    expect(code).toBe(141);
  });

  it('sql exposes every snapshot table as a view', async () => {
    const out = await cli(['sql', 'select (select count(*) from advisories) a, (select count(*) from affected_packages) p, (select count(*) from related_keys) k, (select count(*) from cwes) w', '--data', dataDir, '--format', 'json']);
    const [row] = JSON.parse(out.stdout) as Array<Record<string, number>>;
    for (const v of Object.values(row!)) expect(v).toBeGreaterThan(0);
  });

  it('sql JSON gives counts, sums and decimals as numbers at any depth; too wide for a double, a string', async () => {
    const out = await cli(['sql', '--data', dataDir, '--format', 'json',
      "select 1.5 as d, sum(service_score)::decimal(9,1) >= 0 as ok, [count(*)] as counts, {'n': count(*), 'avg': 2.50} as s, 99999999999999999999::hugeint as huge, 123456789012.3456::decimal(18,4) as wide, null::bigint as none from cves"]);
    expect(out.code, out.stderr).toBe(0);
    // The library's strings: "1.5", ["83"], {"n": "83", "avg": "2.50"}.
    expect(JSON.parse(out.stdout)).toEqual([{ d: 1.5, ok: true, counts: [83], s: { n: 83, avg: 2.5 }, huge: '99999999999999999999', wide: '123456789012.3456', none: null }]);
  });

  it('sql keeps every column of a repeated name: CSV and the table by position, JSON told apart', async () => {
    // CSV printed the first column's value under both headers (`a,a` then `1,1`).
    const csv = await cli(['sql', '--data', dataDir, '--format', 'csv', 'select 1 as a, 2 as a']);
    expect(csv.stdout).toBe('a,a\n1,2\n');
    const json = await cli(['sql', '--data', dataDir, '--format', 'json', 'select 1 as a, 2 as a']);
    expect(JSON.parse(json.stdout)).toEqual([{ a: 1, 'a:1': 2 }]);
    const table = await cli(['sql', '--data', dataDir, 'select 1 as a, 2 as a']);
    expect(table.stdout).toMatch(/│ 0 +│ 1 +│ 2 +│/);
  });

  it('sql and scan over a CURRENT naming no snapshot, or a snapshot with files deleted: one line naming it, no stack', async () => {
    const data = await mkdtemp(join(tmpdir(), 'vulnintel-damaged-'));
    await cp(dataDir, data, { recursive: true });
    const id = (await readCurrentBuildId(data))!;
    const pointer = join(data, 'CURRENT');
    const cases: Array<[string, string]> = [
      ['20990101T000000Z-dead', `${pointer} names snapshot 20990101T000000Z-dead, but ${join(data, 'snapshots', '20990101T000000Z-dead')} is not there`],
      ['../../etc', `${pointer}: "../../etc" is not a build id`],
    ];
    for (const [content, message] of cases) {
      await writeFile(pointer, `${content}\n`);
      const sql = await cli(['sql', '--data', data, 'select 1']);
      expect(sql.code, content).toBe(1);
      expect(sql.stderr, content).toBe(`vulnintel: ${message} (run \`vulnintel build\` to publish one)\n`);
      // scan reads the serving files first and fell back on the same views; exit 2: the snapshot cannot be read.
      const scan = await cli(['scan', resolve(import.meta.dirname, '..', 'fixtures', 'sbom', 'sample.cdx.json'), '--data', data]);
      expect(scan.code, content).toBe(2);
      expect(scan.stderr, content).toContain(message);
    }
    await writeFile(pointer, `${id}\n`);
    await rm(join(data, 'snapshots', id, 'kev.parquet'));
    const half = await cli(['sql', '--data', data, 'select count(*) from cves']);
    expect(half.code).toBe(1);
    expect(half.stderr).toMatch(new RegExp(`^vulnintel: snapshot ${id} is damaged: table kev \\(.*kev\\.parquet\\) cannot be read: .*\\n$`));
    await rm(data, { recursive: true, force: true });
  });

  it('sql runs several statements in turn and prints the last one\'s result; a query without a statement is an error', async () => {
    // The first result was printed and every later one dropped.
    const two = await cli(['sql', '--data', dataDir, '--format', 'csv', 'select 1 as a; select 2 as b']);
    expect(two.stdout).toBe('b\n2\n');
    const built = await cli(['sql', '--data', dataDir, '--format', 'json', "create table t as select cve_id from cves where cve_id = 'CVE-2024-3400'; select count(*) as n from t"]);
    expect(JSON.parse(built.stdout)).toEqual([{ n: 1 }]);
    // These printed an empty line and exited 0.
    for (const empty of ['', ' ;', '-- a comment only']) {
      const out = await cli(['sql', '--data', dataDir, '--', empty]);
      expect(out.code, JSON.stringify(empty)).toBe(1);
      expect(out.stderr, JSON.stringify(empty)).toBe('vulnintel: query failed: no SQL statement in it\n');
    }
    const typo = await cli(['sql', '--data', dataDir, 'selec 1']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toMatch(/^vulnintel: query failed: Parser Error: syntax error at or near "selec"/);
  });

  it('a bad query is a one-line error, exit 1', async () => {
    const out = await cli(['sql', 'select nope from cves', '--data', dataDir]);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/^vulnintel: query failed: .*nope/);
    expect(out.stderr).not.toMatch(/\n\s+at /);
  });

  it('sql without a published snapshot says so', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'vulnintel-empty-'));
    const out = await cli(['sql', 'select 1', '--data', empty]);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('no published snapshot');
  });

  it('build names the file and the record of a malformed input, exit 1, nothing published', async () => {
    const raw = await mkdtemp(join(tmpdir(), 'vulnintel-bad-'));
    await mkdir(join(raw, 'nvd'));
    const bad = nvdRecord({ id: 'CVE-2025-30001' });
    (bad as Record<string, unknown>).lastModified = 'yesterday-ish';
    await writeFile(join(raw, 'nvd', 'page-000003.json'), JSON.stringify(nvdPage([bad])));
    const data = await mkdtemp(join(tmpdir(), 'vulnintel-data-'));
    const out = await cli(['build', '--raw', raw, '--data', data]);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/vulnintel: .*page-000003\.json: record CVE-2025-30001: .*lastModified/);
    const sql = await cli(['sql', 'select 1', '--data', data]);
    expect(sql.stderr).toContain('no published snapshot');
  });

  it('sql, scan and build over a CURRENT that cannot be read (a folder): one line naming it, no stack; scan exits 2, not its findings code 1', async () => {
    const data = await mkdtemp(join(tmpdir(), 'vulnintel-current-folder-'));
    const pointer = join(data, 'CURRENT');
    await mkdir(pointer);
    const message = `vulnintel: ${pointer}: cannot be read as the file naming the published snapshot (EISDIR: illegal operation on a directory, read)\n`;
    const sql = await cli(['sql', '--data', data, 'select 1']);
    expect([sql.code, sql.stderr]).toEqual([1, message]);
    const scan = await cli(['scan', resolve(import.meta.dirname, '..', 'fixtures', 'sbom', 'sample.cdx.json'), '--data', data]);
    expect([scan.code, scan.stderr]).toEqual([2, message]);
    const raw = await mkdtemp(join(tmpdir(), 'vulnintel-raw-'));
    await mkdir(join(raw, 'nvd'));
    await writeFile(join(raw, 'nvd', 'page-000000.json'), JSON.stringify(nvdPage([nvdRecord({ id: 'CVE-2025-30004' })])));
    const build = await cli(['build', '--raw', raw, '--data', data]);
    expect([build.code, build.stderr]).toEqual([1, message]);
    expect((await readdir(join(data, 'snapshots')).catch(() => []))).toEqual([]);
    await rm(data, { recursive: true, force: true });
  });

  it('build refuses a CURRENT that holds no build id: one line naming the file, exit 1, CURRENT untouched', async () => {
    const raw = await mkdtemp(join(tmpdir(), 'vulnintel-raw-'));
    await mkdir(join(raw, 'nvd'));
    await writeFile(join(raw, 'nvd', 'page-000000.json'), JSON.stringify(nvdPage([nvdRecord({ id: 'CVE-2025-30003' })])));
    const data = await mkdtemp(join(tmpdir(), 'vulnintel-data-'));
    const pointer = join(data, 'CURRENT');
    // It was read as a folder: nothing there, the build went on as a first one (no changes
    // recorded against the snapshot really published) and replaced it.
    await writeFile(pointer, '../elsewhere/snapshots/20990101T000000Z-aaaa\n');
    const out = await cli(['build', '--raw', raw, '--data', data]);
    expect(out.code).toBe(1);
    expect(out.stderr).toBe(`vulnintel: ${pointer}: "../elsewhere/snapshots/20990101T000000Z-aaaa" is not a build id (run \`vulnintel build\` to publish one)\n`);
    expect(await readFile(pointer, 'utf8')).toBe('../elsewhere/snapshots/20990101T000000Z-aaaa\n');
    expect((await readdir(join(data, 'snapshots')).catch(() => []))).toEqual([]);
  });

  it('build refuses a data folder another build holds: one line naming the folder and the pid, exit 1', async () => {
    const raw = await mkdtemp(join(tmpdir(), 'vulnintel-raw-'));
    await mkdir(join(raw, 'nvd'));
    await writeFile(join(raw, 'nvd', 'page-000000.json'), JSON.stringify(nvdPage([nvdRecord({ id: 'CVE-2025-30002' })])));
    const data = await mkdtemp(join(tmpdir(), 'vulnintel-data-'));
    // This test's own process stands for the build that holds the folder.
    await writeFile(join(data, '_build.lock'), `${process.pid}\n`);
    const out = await cli(['build', '--raw', raw, '--data', data]);
    expect(out.code).toBe(1);
    expect(out.stderr).toBe(`vulnintel: ${data}: another vulnintel build (pid ${process.pid}) is building into this data folder: nothing published; run again once it has finished (lock file ${join(data, '_build.lock')})\n`);
    expect((await readdir(data)).sort()).toEqual(['_build.lock']);
  });

  it('rejects bad option values with a message naming the option', async () => {
    const out = await cli(['build', '--keep', 'zero']);
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('--keep must be a positive integer');
    // DuckDB failed on this many threads with an internal error and a C++ stack trace.
    const threads = await cli(['build', '--raw', '/nonexistent-raw', '--data', dataDir, '--threads', '99999999999']);
    expect(threads.stderr).toContain('--threads must be at most 1024');
    // DuckDB refused these as a bare "Failed to set config", with a stack, after staging.
    for (const size of ['abc', '1500', '80%']) {
      const bad = await cli(['build', '--raw', '/nonexistent-raw', '--data', dataDir, '--memory-limit', size]);
      expect(bad.code, size).not.toBe(0);
      expect(bad.stderr, size).toContain('--memory-limit must be a size with its unit, e.g. 1500MB or 2GB');
      expect(bad.stderr, size).not.toMatch(/\n\s+at /);
    }
    // Accepted, these crashed the build with DuckDB's out-of-memory error and a stack.
    for (const size of ['1B', '1KB', '64MB', '122MiB']) {
      const small = await cli(['build', '--raw', '/nonexistent-raw', '--data', dataDir, '--memory-limit', size]);
      expect(small.code, size).not.toBe(0);
      expect(small.stderr, size).toContain('--memory-limit must be at least 128MB');
      expect(small.stderr, size).not.toMatch(/\n\s+at /);
    }
  });

  it('a port past 65535 is refused as a port, before anything starts', async () => {
    const out = await cli(['serve', '--data', dataDir, '--port', '99999']);
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('--port must be at most 65535');
  });

  it('a file given as a folder is refused naming the option; a file system refusal is one line, no stack', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vulnintel-folder-'));
    const file = join(dir, 'a-file.txt');
    await writeFile(file, 'not a folder');
    // Each failed with a stack before (ENOTDIR, EEXIST) from deep inside the command.
    for (const args of [
      ['build', '--raw', file, '--data', dir],
      ['build', '--data', file],
      ['sql', '--data', file, 'SELECT 1'],
      ['notify', '--data', file],
      ['fetch', '--raw', file, '--sources', 'kev', '--data', dir],
      ['serve', '--data', file],
    ]) {
      const out = await cli(args);
      const option = args.includes('--raw') && args[args.indexOf('--raw') + 1] === file ? '--raw' : '--data';
      expect(out.code, args.join(' ')).not.toBe(0);
      expect(out.stderr, args.join(' ')).toContain(`${option} ${file}: not a folder`);
      expect(out.stderr, args.join(' ')).not.toMatch(/\n\s+at /);
    }
    // VULNINTEL_DATA is checked as --data is: it failed deep inside each command (EEXIST, ENOTDIR).
    for (const args of [['build', '--raw', dir], ['serve'], ['sql', 'SELECT 1'], ['scan', join(dir, 'none.json')]]) {
      const out = await cli(args, { env: { VULNINTEL_DATA: file } });
      expect(out.code, args.join(' ')).not.toBe(0);
      expect(out.stderr, args.join(' ')).toContain(`from env 'VULNINTEL_DATA' is invalid. --data ${file}: not a folder`);
    }
    const fromEnv = await cli(['sql', 'select count(*) as n from cves', '--format', 'csv'], { env: { VULNINTEL_DATA: dataDir } });
    expect(fromEnv.stdout).toBe('n\n83\n');
    const below = await cli(['sql', '--data', join(file, 'below'), 'SELECT 1']);
    expect(below.code).toBe(1);
    expect(below.stderr).toMatch(/^vulnintel: ENOTDIR: not a directory, \w+ '.*a-file\.txt\/below/);
    expect(below.stderr).not.toMatch(/\n\s+at /);
  });

  it('an empty folder (--data "", --raw "") is refused naming the option, not taken as the working folder', async () => {
    // resolve('') is the working folder: build published snapshots/ and CURRENT there, sql and
    // serve read it, with nothing said.
    const cwd = await mkdtemp(join(tmpdir(), 'vulnintel-empty-'));
    for (const args of [
      ['sql', '--data', '', 'SELECT 1'],
      ['build', '--data', '', '--raw', cwd],
      ['build', '--raw', '', '--data', cwd],
      ['fetch', '--raw', '', '--sources', 'kev', '--data', cwd],
    ]) {
      const out = await cli(args, { cwd });
      const option = args[args.indexOf('') - 1];
      expect(out.code, args.join(' ')).toBe(1);
      expect(out.stderr, args.join(' ')).toContain(`${option} is empty: name a folder`);
    }
    // VULNINTEL_DATA= is another matter: a variable set to nothing is unset (README), and --data
    // takes its default, ./data (see "an option's environment variable set to nothing…").
    expect(await readdir(cwd)).toEqual([]);
  });

  it('a --mail-from that is not one address is refused when the command starts, naming the option', async () => {
    for (const from of ['not an address', 'a@example.org, b@example.org', 'Team: a@example.org;']) {
      // No SMTP server listens there: the sender is refused before any connection.
      const out = await cli(['notify', '--data', dataDir, '--smtp', 'smtp://127.0.0.1:9', '--mail-from', from]);
      expect(out.code, from).toBe(1);
      expect(out.stderr, from).toContain(`--mail-from: not one e-mail address: ${JSON.stringify(from)}`);
    }
  });

  it('a --pulse-db URL of another scheme is refused, naming the option; no store is made in its place', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'vulnintel-pulse-db-'));
    for (const spec of ['mysql://db.example.org/pulse', 'postgress://typo/pulse', 'sqlite:///tmp/pulse.db']) {
      const out = await cli(['notify', '--data', dataDir, '--pulse-db', spec], { cwd });
      expect(out.code, spec).toBe(1);
      expect(out.stderr, spec).toContain(`--pulse-db: ${spec.split('://')[0]}:// is not a store vulnintel can use`);
    }
    // Taken as paths, they were SQLite files made under ./mysql:/, ./postgress:/, ./sqlite:/.
    expect(await readdir(cwd)).toEqual([]);
    // A file: URL is a SQLite file.
    const file = join(cwd, 'from-url.db');
    const ok = await cli(['notify', '--data', dataDir, '--pulse-db', `file://${file}`], { cwd });
    expect(ok.code, ok.stderr).toBe(0);
    expect(await readdir(cwd)).toContain('from-url.db');
  });
});
