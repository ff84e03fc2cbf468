import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { metasploitParser, metasploitRows } from '../../cli/parse/metasploit.ts';
import { MemoryStageSink } from '../../cli/stage/writer.ts';

const DIR = fileURLToPath(new URL('../fixtures/exploits/metasploit/', import.meta.url));
const noProgress = { tick() {}, setTotal() {}, stop() {} };

describe('Metasploit modules_metadata_base.json', () => {
  it('gives one verified row per CVE reference, ignoring EDB/BID/OSVDB/URL references', async () => {
    const sink = new MemoryStageSink();
    expect(await metasploitParser.stage(DIR, sink, noProgress)).toEqual({ files: 1, records: 2 });
    expect(sink.rows.exploit).toEqual([
      {
        cve_id: 'CVE-2007-4387',
        source: 'metasploit',
        exploit_id: 'auxiliary/admin/2wire/xslt_password_reset',
        url: 'https://github.com/rapid7/metasploit-framework/blob/master/modules/auxiliary/admin/2wire/xslt_password_reset.rb',
        title: '2Wire Cross-Site Request Forgery Password Reset Vulnerability',
        published: '2007-08-15T00:00:00.000Z',
        verified: true,
      },
      {
        cve_id: 'CVE-2013-7409',
        source: 'metasploit',
        exploit_id: 'exploit/windows/fileformat/allplayer_m3u_bof',
        url: 'https://github.com/rapid7/metasploit-framework/blob/master/modules/exploits/windows/fileformat/allplayer_m3u_bof.rb',
        title: 'ALLPlayer M3U Buffer Overflow',
        published: '2013-10-09T00:00:00.000Z',
        verified: true,
      },
    ]);
  });

  it('keeps a module with a null disclosure date and several CVEs', () => {
    const rows = metasploitRows('exploit_x', { fullname: 'exploit/x', name: 'X', disclosure_date: null, references: ['CVE-2021-1', 'CVE-2021-44228', 'CVE-2021-45046', 'CVE-2021-44228'] }, 'm.json');
    expect(rows.map((r) => [r.cve_id, r.published])).toEqual([
      ['CVE-2021-44228', null],
      ['CVE-2021-45046', null],
    ]);
  });

  it('rejects a disclosure date its month lacks, naming the file and the module key', () => {
    expect(() => metasploitRows('exploit_x', { fullname: 'exploit/x', disclosure_date: '2021-02-29', references: ['CVE-2021-44228'] }, 'm.json')).toThrow(
      /m\.json: record exploit_x: unreadable disclosure_date \("2021-02-29"\): day 29 does not exist in 2021-02/,
    );
  });

  it('rejects a module without fullname, naming the file and the module key', () => {
    expect(() => metasploitRows('exploit_windows/x', { name: 'X', references: [] }, 'db/modules_metadata_base.json')).toThrow(
      /db\/modules_metadata_base\.json: record exploit_windows\/x: module has no "fullname"/,
    );
  });

  it('rejects a metadata file that is not an object keyed by module', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'msf-'));
    try {
      writeFileSync(join(dir, 'modules_metadata_base.json'), '[]');
      await expect(metasploitParser.stage(dir, new MemoryStageSink(), noProgress)).rejects.toThrow(/modules_metadata_base\.json: modules metadata must be a JSON object/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
