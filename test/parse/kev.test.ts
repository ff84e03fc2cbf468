import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RawFormatError } from '../../lib/errors.ts';
import type { Progress } from '../../lib/log.ts';
import { kevParser, stageKevDocument } from '../../cli/parse/kev.ts';
import { MemoryStageSink } from '../../cli/stage/writer.ts';

const REAL = fileURLToPath(new URL('../fixtures/kev/real/', import.meta.url));
const HANDMADE = fileURLToPath(new URL('../fixtures/kev/handmade/', import.meta.url));
const CATALOG = 'known_exploited_vulnerabilities.json';

function countingProgress(): Progress & { ticks: number } {
  const p = { ticks: 0, tick: (n = 1) => void (p.ticks += n), setTotal: () => {}, stop: () => {} };
  return p;
}

function realCatalog(): { vulnerabilities: Array<Record<string, unknown>> } & Record<string, unknown> {
  return JSON.parse(readFileSync(join(REAL, CATALOG), 'utf8'));
}

function stageError(json: unknown): RawFormatError {
  try {
    stageKevDocument(json, 'raw/kev/known_exploited_vulnerabilities.json', new MemoryStageSink());
  } catch (err) {
    expect(err).toBeInstanceOf(RawFormatError);
    return err as RawFormatError;
  }
  throw new Error('expected a RawFormatError');
}

describe('KEV catalog', () => {
  it('one kev row per entry, with its CWEs as cve_cwe rows', async () => {
    const sink = new MemoryStageSink();
    const progress = countingProgress();
    expect(await kevParser.stage(REAL, sink, progress)).toEqual({ files: 1, records: 6 });
    expect(progress.ticks).toBe(6);
    const citrix = sink.rows.kev.find((r) => r.cve_id === 'CVE-2023-4966');
    expect(citrix).toMatchObject({
      vendor_project: 'Citrix',
      date_added: '2023-10-18',
      due_date: '2023-11-08',
      known_ransomware_campaign_use: 'Known',
      cwes: ['CWE-119'],
      catalog_version: '2025.08.25',
    });
    expect(sink.rows.kev.find((r) => r.cve_id === 'CVE-2025-8876')!.cwes).toEqual([]);
    expect(sink.rows.cve_cwe.filter((r) => r.cve_id === 'CVE-2025-48384').map((r) => r.cwe_id)).toEqual(['CWE-59', 'CWE-436']);
    expect(sink.rows.cve_cwe.every((r) => r.feed === 'kev' && r.file === join(REAL, CATALOG))).toBe(true);
    expect(sink.rows.cve_cwe).toHaveLength(7);
  });

  it('newer schema: forensicTriage is ignored, a missing cwes is empty, empty notes are null', async () => {
    const sink = new MemoryStageSink();
    await kevParser.stage(HANDMADE, sink, countingProgress());
    expect(sink.rows.kev).toHaveLength(2);
    const [triaged, noCwes] = sink.rows.kev;
    expect(triaged).toMatchObject({ cve_id: 'CVE-2026-12544', cwes: ['CWE-502'], catalog_version: '2026.09.30' });
    expect(triaged).not.toHaveProperty('forensicTriage');
    expect(noCwes).toMatchObject({ cve_id: 'CVE-2007-0671', cwes: [], notes: null, known_ransomware_campaign_use: 'Known' });
  });
});

describe('KEV malformed input', () => {
  it('an entry without cveID is named by its position', () => {
    const catalog = realCatalog();
    delete catalog.vulnerabilities[2]!.cveID;
    const err = stageError(catalog);
    expect(err.message).toMatch(/known_exploited_vulnerabilities\.json: record vulnerabilities\[2\]: missing or invalid cveID/);
  });

  it('missing required fields or unreadable dates name the CVE', () => {
    const noDate = realCatalog();
    delete noDate.vulnerabilities[0]!.dateAdded;
    expect(stageError(noDate).message).toMatch(/record CVE-2025-48384: missing dateAdded$/);
    const badDue = realCatalog();
    badDue.vulnerabilities[1]!.dueDate = 'soon';
    expect(stageError(badDue).message).toMatch(/record CVE-2025-8876: unreadable dueDate \("soon"\): not a date-time/);
    const noVendor = realCatalog();
    delete noVendor.vulnerabilities[3]!.vendorProject;
    expect(stageError(noVendor).message).toMatch(/record CVE-2024-3400: missing required field vendorProject/);
  });

  it('a date its month lacks is refused, not published as the next month\'s', () => {
    const feb30 = realCatalog();
    feb30.vulnerabilities[0]!.dateAdded = '2024-02-30';
    expect(stageError(feb30).message).toMatch(/known_exploited_vulnerabilities\.json: record CVE-2025-48384: unreadable dateAdded \("2024-02-30"\): day 30 does not exist in 2024-02$/);
  });

  it('cwes that are not CWE ids, or not a list', () => {
    const bad = realCatalog();
    bad.vulnerabilities[4]!.cwes = ['Improper Input Validation'];
    expect(stageError(bad).message).toMatch(/record CVE-2023-4966: cwes holds a value that is not a CWE id/);
    const notList = realCatalog();
    notList.vulnerabilities[4]!.cwes = 'CWE-119';
    expect(stageError(notList).message).toMatch(/record CVE-2023-4966: `cwes` is not an array/);
  });

  it('a catalog without a vulnerabilities list', () => {
    expect(stageError({ catalogVersion: '2025.08.25', vulnerabilities: null }).message).toMatch(/`vulnerabilities` is not an array/);
    expect(stageError('[]').message).toMatch(/expected a JSON object/);
  });

  it('skips the JSON Schema that cisagov/kev-data publishes beside the catalog', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kev-schema-'));
    try {
      for (const f of readdirSync(REAL)) copyFileSync(join(REAL, f), join(dir, f));
      copyFileSync(fileURLToPath(new URL('../fixtures/kev/schema-beside-catalog.json', import.meta.url)), join(dir, 'known_exploited_vulnerabilities_schema.json'));
      const sink = new MemoryStageSink();
      expect(await kevParser.stage(dir, sink, countingProgress())).toEqual({ files: 1, records: 6 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
