import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { msrcParser, parseMsrcDocument } from '../../cli/parse/msrc.ts';
import { MemoryStageSink } from '../../cli/stage/writer.ts';

const DIR = fileURLToPath(new URL('../fixtures/msrc/', import.meta.url));
const FILE = join(DIR, '2024-Feb.json');
const noProgress = { tick() {}, setTotal() {}, stop() {} };

function fixture() {
  const rows = parseMsrcDocument(JSON.parse(readFileSync(FILE, 'utf8')), FILE);
  if (!rows) throw new Error('skipped');
  return rows;
}

describe('MSRC CVRF documents', () => {
  it('reads the monthly document as one microsoft advisory', () => {
    const { advisory } = fixture();
    expect(advisory).toMatchObject({
      vendor: 'microsoft',
      advisory_id: '2024-Feb',
      title: 'February 2024 Security Updates',
      category: 'Security Update',
      status: 'final',
      version: '1.0',
      published: '2024-02-13T08:00:00.000Z',
      modified: '2024-02-27T08:00:00.000Z',
      vendor_severity: 'CRITICAL',
      vendor_severity_source: 'microsoft',
      vendor_severity_evidence: 'Critical',
      cvss_score: 9.8,
      cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/E:U/RL:O/RC:C',
      cve_ids: ['CVE-2024-21412', 'CVE-2024-21351', 'CVE-2024-21413'],
      url: 'https://api.msrc.microsoft.com/cvrf/v3.0/cvrf/2024-Feb',
    });
    // The note is HTML (`<p>…</p>`): served as its text, as every description is.
    expect(advisory.description).toBe('The February 2024 security release consists of security updates for the following products, features and roles.');
    expect(advisory.products).toEqual([
      'Windows 11 Version 23H2 for x64-based Systems',
      'Windows Server 2022, 23H2 Edition (Server Core installation)',
      'Microsoft Office LTSC 2021 for 64-bit editions',
    ]);
    // KB5034765 fixes two CVEs for the same product: listed once.
    expect(advisory.remediations.map((r) => r.details)).toEqual(['5034765', '5034770', 'Click to Run']);
    expect(advisory.remediations.every((r) => r.category === 'vendor_fix')).toBe(true);
  });

  it('serves an HTML note as text: entities decoded, lists and links kept readable, scripts dropped', () => {
    const doc = JSON.parse(readFileSync(FILE, 'utf8')) as { DocumentNotes: { Value: string }[] };
    doc.DocumentNotes[0]!.Value =
      '<p>Fixes &amp; updates:</p><ul><li>Windows</li><li>Office</li></ul><p>See <a href="https://learn.example/guide">the guide</a>.<br>Next line</p><script>alert(1)</script>';
    const { advisory } = parseMsrcDocument(doc, FILE)!;
    expect(advisory.description).toBe('Fixes & updates:\n\n * Windows\n * Office\n\nSee the guide [https://learn.example/guide].\nNext line');
  });

  it('reads per-CVE severity (highest over products), Exploited:Yes and the highest CVSS', () => {
    const { cves } = fixture();
    const byCve = Object.fromEntries(cves.map((c) => [c.cve_id, c]));
    expect(byCve['CVE-2024-21412']).toMatchObject({
      vendor_severity: 'HIGH',
      vendor_severity_evidence: 'Important',
      exploited: true,
      exploited_evidence: 'Publicly Disclosed:No;Exploited:Yes;Latest Software Release:Exploitation Detected',
      cvss_score: 8.1,
      cvss_version: '3.1',
      cwe_id: null,
    });
    expect(byCve['CVE-2024-21351']).toMatchObject({ vendor_severity: 'MEDIUM', vendor_severity_evidence: 'Moderate', exploited: true, cwe_id: 'CWE-20' });
    // Important for Windows, Critical for Office: Critical wins; 9.8 beats 7.8.
    expect(byCve['CVE-2024-21413']).toMatchObject({
      vendor_severity: 'CRITICAL',
      vendor_severity_evidence: 'Critical',
      exploited: false,
      exploited_evidence: null,
      cvss_score: 9.8,
    });
  });

  it('gives no CVE row to Microsoft advisories (ADV…) in the CVE field', () => {
    const { cves } = fixture();
    expect(cves).toHaveLength(3);
    expect(cves.some((c) => c.cve_id.startsWith('ADV'))).toBe(false);
  });

  it('rejects a document without DocumentTracking.Identification.ID, naming the file and title', () => {
    const doc = { DocumentTitle: { Value: 'March 2024 Security Updates' }, DocumentTracking: { Identification: {} }, Vulnerability: [] };
    expect(() => parseMsrcDocument(doc, 'msrc/2024-Mar.json')).toThrow(
      /msrc\/2024-Mar\.json: record March 2024 Security Updates: CVRF document has no DocumentTracking\.Identification\.ID\.Value/,
    );
  });

  it('rejects a Vulnerability member that is not an array', () => {
    const doc = { DocumentTracking: { Identification: { ID: { Value: '2024-Mar' } } }, Vulnerability: { CVE: 'CVE-2024-1' } };
    expect(() => parseMsrcDocument(doc, 'm.json')).toThrow(/m\.json: record 2024-Mar: "Vulnerability" is not an array/);
  });

  it('refuses an ID the API could not serve (a control character), naming the file', () => {
    const doc = JSON.parse(readFileSync(FILE, 'utf8'));
    doc.DocumentTracking.Identification.ID.Value = '2024-Feb\u0007';
    expect(() => parseMsrcDocument(doc, FILE)).toThrow(/2024-Feb\.json: record 2024-Feb\\u0007: DocumentTracking\.Identification\.ID\.Value cannot be served by the API/);
  });

  it('a score set BaseScore out of range, or a Vector that does not parse beside its BaseScore, is refused naming the file, the release and the CVE', () => {
    const doc = JSON.parse(readFileSync(FILE, 'utf8'));
    const vulnerability = doc.Vulnerability.find((v: { CVSSScoreSets?: unknown[] }) => v.CVSSScoreSets?.length);
    vulnerability.CVSSScoreSets[0].BaseScore = 12;
    expect(() => parseMsrcDocument(doc, FILE)).toThrow(new RegExp(`record 2024-Feb: Vulnerability ${vulnerability.CVE}: CVSSScoreSets\\[0\\]\\.BaseScore 12 is out of range 0–10$`));
    // A Vector that does not parse is dropped; its BaseScore stays.
    vulnerability.CVSSScoreSets[0].BaseScore = 7.8;
    vulnerability.CVSSScoreSets[0].Vector = 'CVSS:3.1/AV:Z/<script>';
    const parsed = JSON.stringify(parseMsrcDocument(doc, FILE));
    expect(parsed).not.toContain('<script>');
  });

  it('rejects a release date its month lacks, naming the file and the release', () => {
    const doc = JSON.parse(readFileSync(FILE, 'utf8'));
    doc.DocumentTracking.CurrentReleaseDate = '2024-02-30T08:00:00';
    expect(() => parseMsrcDocument(doc, FILE)).toThrow(/2024-Feb\.json: record 2024-Feb: unreadable DocumentTracking\.CurrentReleaseDate \("2024-02-30T08:00:00"\): day 30/);
  });

  it('skips the /updates listing', () => {
    expect(parseMsrcDocument({ '@odata.context': 'x', value: [{ ID: '2024-Feb' }] }, 'updates.json')).toBeNull();
  });

  it('stages the fixture folder', async () => {
    const sink = new MemoryStageSink();
    expect(await msrcParser.stage(DIR, sink, noProgress)).toEqual({ files: 1, records: 1 });
    expect(sink.rows.vendor_advisory).toHaveLength(1);
    expect(sink.rows.vendor_advisory_cve).toHaveLength(3);
  });
});
