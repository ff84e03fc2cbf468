/**
 * Raw files no parser reads are listed (build output and manifest), with the names that would
 * have been read: data put in the wrong place must not read as "no records".
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSkipped } from '../../cli/build/skipped.ts';

let raw: string;
beforeAll(async () => {
  raw = await mkdtemp(join(tmpdir(), 'vulnintel-skipped-'));
  const put = async (path: string, text = '{}') => {
    await mkdir(join(raw, path, '..'), { recursive: true });
    await writeFile(join(raw, path), text);
  };
  await put('exploits/files_exploits.csv', 'id,file\n');
  await put('exploits/metasploit/modules_metadata_base.json');
  await put('exploits/nuclei/templates.json');
  await put('notes.txt', 'hello');
  await put('nvd/full/page-0000000.json.gz', '');
  await put('nvd/_state.json');
  await put('nvd/README.md', '# not data');
  await put('metasploit/modules.json');
  await put('epss/epss_scores-current.csv.gz', '');
  await put('_status/nvd.json');
  await put('.fetch-tmp', '');
});
afterAll(() => rm(raw, { recursive: true, force: true }));

describe('skipped raw files', () => {
  it('lists unknown folders and files, and unread names inside source folders, with the names that would be read', async () => {
    const report = await findSkipped(raw);
    const byPath = new Map(report.entries.map((e) => [e.path, e]));
    expect([...byPath.keys()].sort()).toEqual(['exploits/', 'metasploit/modules.json', 'notes.txt', 'nvd/README.md']);
    expect(report.total).toBe(4);
    // Files in the unknown folder that a source reads by name say where they belong.
    expect(byPath.get('exploits/')!.expected).toEqual(['exploitdb/files_exploits.csv', 'metasploit/modules_metadata_base.json']);
    expect(byPath.get('exploits/')!.reason).toBe('not a source folder: none of its 3 file(s) is read');
    expect(byPath.get('metasploit/modules.json')!.expected).toEqual(['metasploit/modules_metadata_base.json', 'metasploit/modules_metadata_base.json.gz', 'metasploit/**/*.zip']);
    expect(byPath.get('nvd/README.md')!.expected).toContain('nvd/**/*.json.gz');
    // Nothing matches by name: every source folder and its names are offered.
    expect(byPath.get('notes.txt')!.expected).toEqual(expect.arrayContaining(['kev/**/*.json', 'exploitdb/files_exploits.csv', 'epss/**/*.csv.gz']));
  });

  it('a raw folder that does not exist has nothing skipped', async () => {
    expect(await findSkipped(join(raw, 'missing'))).toEqual({ total: 0, entries: [] });
  });
});
