import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RawFormatError } from '../../lib/errors.ts';
import { nucleiParser, nucleiRows } from '../../cli/parse/nuclei.ts';
import { MemoryStageSink } from '../../cli/stage/writer.ts';

const DIR = fileURLToPath(new URL('../fixtures/exploits/nuclei/', import.meta.url));
const MALFORMED = fileURLToPath(new URL('../fixtures/exploits/malformed/', import.meta.url));
const noProgress = { tick() {}, setTotal() {}, stop() {} };

describe('nuclei-templates cves.json', () => {
  it('gives one verified row per line, including a line whose CVSSScore is "N/A"', async () => {
    const sink = new MemoryStageSink();
    expect(await nucleiParser.stage(DIR, sink, noProgress)).toEqual({ files: 1, records: 9 });
    expect(sink.rows.exploit).toHaveLength(9);
    expect(sink.rows.exploit.find((r) => r.cve_id === 'CVE-2000-0760')).toEqual({
      cve_id: 'CVE-2000-0760',
      source: 'nuclei',
      exploit_id: 'CVE-2000-0760',
      url: 'https://github.com/projectdiscovery/nuclei-templates/blob/main/http/cves/2000/CVE-2000-0760.yaml',
      title: 'Jakarta Tomcat 3.1 and 3.0 - Exposure',
      published: null,
      verified: true,
    });
  });

  it('decodes Go escapes in names', () => {
    const { rows } = nucleiRows(readFileSync(join(DIR, 'cves.json'), 'utf8'), 'cves.json');
    expect(rows.find((r) => r.cve_id === 'CVE-2005-4385')!.title).toBe('Cofax <=2.0RC3 - Cross-Site Scripting');
  });

  it('rejects a bad line, naming the file and the line number', () => {
    const file = join(MALFORMED, 'nuclei-truncated-line.jsonl');
    const text = readFileSync(file, 'utf8');
    expect(() => nucleiRows(text, file)).toThrow(RawFormatError);
    expect(() => nucleiRows(text, file)).toThrow(/nuclei-truncated-line\.jsonl: record line 2: malformed JSON/);
  });

  it('skips blank lines and templates without a CVE id, but not lines without an ID', () => {
    const text = '\n{"ID":"CVE-2024-0001","Info":{"Name":"A"}}\n\n{"ID":"exposed-panel","Info":{"Name":"B"}}\n';
    expect(nucleiRows(text, 'c.json')).toEqual({ rows: [expect.objectContaining({ cve_id: 'CVE-2024-0001', url: null })], lines: 2 });
    expect(() => nucleiRows('{"Info":{}}', 'c.json')).toThrow(/c\.json: record line 1: template has no "ID"/);
  });

  it('reads only cves.json from a repository checkout', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nuclei-'));
    try {
      writeFileSync(join(dir, 'cves.json'), readFileSync(join(DIR, 'cves.json')));
      writeFileSync(join(dir, 'TEMPLATES-STATS.json'), '{\n  "directory": []\n}\n');
      expect(await nucleiParser.stage(dir, new MemoryStageSink(), noProgress)).toEqual({ files: 1, records: 9 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
