/**
 * `vulnintel build` on raw files holding hostile values (in valid JSON) or bytes of another encoding: each is
 * refused on one line naming the file and the record, no stack, and the snapshot published
 * before stays the one CURRENT names.
 */
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CVE_ID as API_CVE_ID } from '../../api/http/params.ts';
import { normalizeCveId } from '../../cli/parse/common.ts';
import { readExploitdbCsv } from '../../cli/parse/exploitdb.ts';
import { readCurrentBuildId, snapshotsDir } from '../../lib/snapshot-layout.ts';
import { cli } from '../helpers/cli.ts';
import { writeCorpus, NVD } from '../helpers/raw-corpus.ts';
import { SAMPLE_RAW } from '../helpers/sample-snapshot.ts';

const SAMPLE_EXPLOITDB = join(SAMPLE_RAW, 'exploitdb', 'files_exploits.csv');

const GOOD = { nvd: [{ id: 'CVE-2025-30001', metrics: [{ version: '3.1' as const, source: NVD, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', score: 9.8 }] }] };

let data: string;
let published: string;

beforeAll(async () => {
  data = await mkdtemp(join(tmpdir(), 'vulnintel-hostile-'));
  const built = await cli(['build', '--raw', await writeCorpus(GOOD), '--data', data]);
  expect(built.code, built.stderr).toBe(0);
  published = (await readCurrentBuildId(data))!;
});

/** A build of `raw` that must fail: its one line of stderr; the published snapshot is still CURRENT and alone. */
async function refusal(raw: string): Promise<string> {
  const run = await cli(['build', '--raw', raw, '--data', data]);
  expect(run.code).toBe(1);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.stderr.split('\n')).toHaveLength(2);
  expect(run.stderr.endsWith('\n')).toBe(true);
  expect(await readCurrentBuildId(data)).toBe(published);
  expect(await readdir(snapshotsDir(data))).toEqual([published]);
  return run.stderr.trimEnd();
}

/** Replaces `text` in `file` (it must be there), returning the file. */
async function rewrite(file: string, text: string, by: string): Promise<string> {
  const before = await readFile(file, 'utf8');
  expect(before).toContain(text);
  await writeFile(file, before.replace(text, by));
  return file;
}

/** A corpus of the good NVD page and a KEV catalog whose first entry has `cveID` as given (JSON text). */
async function kevWithCveId(cveIdJson: string): Promise<{ raw: string; file: string }> {
  const raw = await writeCorpus({ ...GOOD, kev: [{ id: 'CVE-2025-30001', dateAdded: '2025-03-01' }] });
  return { raw, file: await rewrite(join(raw, 'kev', 'known_exploited_vulnerabilities.json'), '"cveID":"CVE-2025-30001"', `"cveID":${cveIdJson}`) };
}

describe('build: hostile values inside valid records', () => {
  it('a value nested 20,000 deep is refused naming the file and the record (it was a stack overflow with a stack trace naming no file)', async () => {
    const { raw, file } = await kevWithCveId(`${'['.repeat(20_000)}1${']'.repeat(20_000)}`);
    expect(await refusal(raw)).toBe(`vulnintel: ${file}: record vulnerabilities[0]: missing or invalid cveID (an array nested too deeply to show)`);
  });

  it('a value a megabyte long is quoted cut short with its length (it was printed whole, a megabyte on one line)', async () => {
    const id = `CVE-2025-${'x'.repeat(1_000_000)}`;
    const { raw, file } = await kevWithCveId(JSON.stringify(id));
    const line = await refusal(raw);
    expect(line.length).toBeLessThan(1000);
    expect(line).toBe(`vulnintel: ${file}: record vulnerabilities[0]: missing or invalid cveID (${JSON.stringify(id).slice(0, 300)}… (1,000,011 characters))`);
  });

  it('a CVSS baseScore JSON reads as Infinity (1e999) is named as such, not as null', async () => {
    const raw = await writeCorpus(GOOD);
    const file = await rewrite(join(raw, 'nvd', 'page-000000.json'), '"baseScore":9.8', '"baseScore":1e999');
    expect(await refusal(raw)).toBe(`vulnintel: ${file}: record CVE-2025-30001: metrics.cvssMetricV31[0]: baseScore Infinity is not a number`);
  });

  it('a CVE id of 20 digits, which the API cannot serve, is refused naming the file (it was published, and its page a 400)', async () => {
    const raw = await writeCorpus({ nvd: [{ id: `CVE-2025-${'1'.repeat(20)}` }] });
    expect(await refusal(raw)).toBe(`vulnintel: ${join(raw, 'nvd', 'page-000000.json')}: record vulnerabilities[0]: missing or invalid CVE id ("CVE-2025-${'1'.repeat(20)}")`);
    // The build reads every CVE id the API serves, and only those.
    for (const digits of [4, 19, 20]) {
      const id = `CVE-2025-${'1'.repeat(digits)}`;
      expect(normalizeCveId(id), id).toBe(API_CVE_ID.test(id) ? id : null);
    }
  });

  it('a text too large for the build\'s reader is refused naming the raw file and the record, not a staging file of the work folder', async () => {
    const big = 'a'.repeat(17_000_000);
    const raw = await writeCorpus({ nvd: [{ ...GOOD.nvd[0]!, description: big }], kev: [{ id: 'CVE-2025-30001', dateAdded: '2025-03-01' }] });
    expect(await refusal(raw)).toBe(`vulnintel: ${join(raw, 'nvd', 'page-000000.json')}: record CVE-2025-30001: too large to stage: its nvd_cve row is 16.2 MiB, past the 16.0 MiB the build reads per record`);
    // A row that carries no file of its own (KEV, EPSS, exploits, CWE) is named by its source folder.
    await writeCorpus(GOOD, raw);
    await rewrite(join(raw, 'kev', 'known_exploited_vulnerabilities.json'), '"shortDescription":"', `"shortDescription":"${big}`);
    expect(await refusal(raw)).toMatch(new RegExp(`^vulnintel: ${join(raw, 'kev').replaceAll('/', '\\/')}: record CVE-2025-30001: too large to stage: its kev row is 16\\.2 MiB, past the 16\\.0 MiB the build reads per record$`));
  });

  it('an Exploit-DB CSV that is not UTF-8 (a Latin-1 copy) is refused naming the file (its titles were published with U+FFFD in place)', async () => {
    const header = (await readFile(SAMPLE_EXPLOITDB, 'utf8')).split('\n')[0]!;
    const row = (title: string) => `${header}\n50001,exploits/x.py,"${title}",2025-01-01,a,remote,linux,,2025-01-01,2025-01-01,1,CVE-2025-30001,,,,,\n`;
    const raw = await writeCorpus(GOOD);
    const file = join(raw, 'exploitdb', 'files_exploits.csv');
    await mkdir(join(raw, 'exploitdb'));
    await writeFile(file, Buffer.from(row('Café RCE'), 'latin1'));
    expect(await refusal(raw)).toBe(`vulnintel: ${file}: not valid UTF-8 text`);
    // The same text in UTF-8, and in UTF-16 with its byte order mark, is read as written.
    for (const bytes of [Buffer.from(row('Café RCE'), 'utf8'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(row('Café RCE'), 'utf16le')])]) {
      await writeFile(file, bytes);
      const titles: string[] = [];
      await readExploitdbCsv(file, (rows) => titles.push(...rows.map((r) => r.title ?? '')));
      expect(titles).toEqual(['Café RCE']);
    }
  });
});
