import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pocCveOfPath, pocInGithubParser, pocInGithubRows } from '../../cli/parse/poc-in-github.ts';
import { MemoryStageSink } from '../../cli/stage/writer.ts';

const DIR = fileURLToPath(new URL('../fixtures/exploits/poc-in-github/', import.meta.url));
const noProgress = { tick() {}, setTotal() {}, stop() {} };

describe('PoC-in-GitHub per-CVE arrays', () => {
  it('reads the CVE from the file name and unescapes \\/ in URLs', async () => {
    const sink = new MemoryStageSink();
    expect(await pocInGithubParser.stage(DIR, sink, noProgress)).toEqual({ files: 1, records: 1 });
    expect(sink.rows.exploit).toEqual([
      {
        cve_id: 'CVE-2002-0083',
        source: 'poc-in-github',
        exploit_id: 'stuxbench/dropbear-cve-2002-0083',
        url: 'https://github.com/stuxbench/dropbear-cve-2002-0083',
        title: null,
        published: '2025-12-04T20:31:50.000Z',
        verified: null,
      },
    ]);
  });

  it('takes CVE ids from plain paths and zip members, and nothing from other names', () => {
    expect(pocCveOfPath('/raw/poc-in-github/2024/CVE-2024-12345.json')).toBe('CVE-2024-12345');
    expect(pocCveOfPath('/raw/poc-in-github/main.zip!PoC-in-GitHub-master/2021/CVE-2021-44228.json')).toBe('CVE-2021-44228');
    expect(pocCveOfPath('/raw/poc-in-github/package.json')).toBeNull();
  });

  it('rejects a file that is not an array and a repository without full_name', () => {
    expect(() => pocInGithubRows({}, 'CVE-2024-1111', '2024/CVE-2024-1111.json')).toThrow(/2024\/CVE-2024-1111\.json: record CVE-2024-1111: a PoC-in-GitHub file must be a JSON array/);
    expect(() => pocInGithubRows([{ html_url: 'https://github.com/a/b' }], 'CVE-2024-1111', 'f.json')).toThrow(/f\.json: record CVE-2024-1111 \[0\]: repository entry has no "full_name"/);
  });

  it('rejects a created_at its month lacks, naming the file and the repository entry', () => {
    expect(() => pocInGithubRows([{ full_name: 'a/b', created_at: '2024-04-31T10:00:00Z' }], 'CVE-2024-1111', 'f.json')).toThrow(
      /f\.json: record CVE-2024-1111 \[0\]: unreadable created_at \("2024-04-31T10:00:00Z"\): day 31 does not exist in 2024-04/,
    );
  });

  it('ignores JSON files that are not per-CVE', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'poc-'));
    try {
      mkdirSync(join(dir, '2024'));
      writeFileSync(join(dir, 'stats.json'), '{"total": 1}');
      writeFileSync(join(dir, '2024', 'CVE-2024-0001.json'), JSON.stringify([{ full_name: 'a/b', html_url: 'https://github.com/a/b', description: 'PoC', created_at: '2024-01-02T03:04:05Z' }]));
      const sink = new MemoryStageSink();
      expect(await pocInGithubParser.stage(dir, sink, noProgress)).toEqual({ files: 1, records: 1 });
      expect(sink.rows.exploit[0]).toMatchObject({ cve_id: 'CVE-2024-0001', title: 'PoC' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
