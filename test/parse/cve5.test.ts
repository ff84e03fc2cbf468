import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { RawFormatError } from '../../lib/errors.ts';
import type { Progress } from '../../lib/log.ts';
import { cve5Parser, stageCve5Record } from '../../cli/parse/cve5.ts';
import { MemoryStageSink } from '../../cli/stage/writer.ts';

const RECORDS = fileURLToPath(new URL('../fixtures/cvelist/records/', import.meta.url));

function noProgress(): Progress & { ticks: number } {
  const p = { ticks: 0, tick: (n = 1) => void (p.ticks += n), setTotal: () => {}, stop: () => {} };
  return p;
}

function sample(name: string): Record<string, any> {
  return JSON.parse(readFileSync(join(RECORDS, name), 'utf8')) as Record<string, any>;
}

function stage(name: string): MemoryStageSink {
  const sink = new MemoryStageSink();
  stageCve5Record(sample(name), join(RECORDS, name), sink);
  return sink;
}

function stageError(json: unknown, file = 'raw/cvelist/cves/2024/3xxx/CVE-2024-3400.json'): RawFormatError {
  try {
    stageCve5Record(json, file, new MemoryStageSink());
  } catch (err) {
    expect(err).toBeInstanceOf(RawFormatError);
    return err as RawFormatError;
  }
  throw new Error('expected a RawFormatError');
}

describe('CVE 5 records', () => {
  it('CVE-2024-3400: capitalised CISA SSVC normalised, KEV date, CNA metric freshness', () => {
    const { rows } = stage('CVE-2024-3400.json');
    expect(rows.ssvc).toEqual([
      { cve_id: 'CVE-2024-3400', feed: 'cve5', exploitation: 'active', automatable: 'yes', technical_impact: 'total', timestamp: '2024-04-17T04:00:13.543Z', file: join(RECORDS, 'CVE-2024-3400.json') },
    ]);
    expect(rows.cve5[0]).toMatchObject({
      cve_id: 'CVE-2024-3400',
      state: 'PUBLISHED',
      assigner_short_name: 'palo_alto',
      date_updated: '2025-07-28T19:43:22.839Z',
      cna_date_updated: '2024-04-19T22:27:27.179Z',
      adp_kev_date_added: '2024-04-12',
      title: 'PAN-OS: Arbitrary File Creation Leads to OS Command Injection Vulnerability in GlobalProtect',
    });
    expect(rows.cvss).toEqual([
      expect.objectContaining({ role: 'cna', provider: 'palo_alto', version: '3.1', base_score: 10, base_severity: 'CRITICAL', modified: '2024-04-19T22:27:27.179Z' }),
    ]);
    // PAN-OS has three affected ranges; Cloud NGFW and Prisma Access are unaffected.
    const cna = rows.product.filter((r) => r.vendor === 'palo alto networks');
    expect(cna.map((r) => `${r.product} ${r.version_start_including}..<${r.version_end_excluding}`)).toEqual([
      'pan-os 10.2.0..<10.2.9-h1',
      'pan-os 11.0.0..<11.0.4-h1',
      'pan-os 11.1.0..<11.1.2-h3',
    ]);
    expect(rows.cve_cwe.map((r) => r.cwe_id).sort()).toEqual(['CWE-20', 'CWE-77']);
  });

  it('CVE-2025-14617 (VulDB): four metric versions, temporal suffixes kept, v2 without severity', () => {
    const { rows } = stage('CVE-2025-14617.json');
    expect(rows.cvss.map((r) => [r.version, r.base_score, r.base_severity])).toEqual([
      ['4.0', 4.8, 'MEDIUM'],
      ['3.1', 5.3, 'MEDIUM'],
      ['3.0', 5.3, 'MEDIUM'],
      ['2.0', 4.3, null],
    ]);
    expect(rows.cvss[3]!.vector).toBe('AV:L/AC:L/Au:S/C:P/I:P/A:P/E:POC/RL:ND/RC:UR');
    expect(rows.cvss.every((r) => r.role === 'cna' && r.provider === 'VulDB' && r.modified === '2025-12-13T14:02:07.989Z')).toBe(true);
    expect(rows.reference.find((r) => r.url === 'https://vuldb.com/?ctiid.336303')).toMatchObject({ tags: ['signature', 'permissions-required'], name: 'VDB-336303 | CTI Indicators (IOB, IOC, TTP)', provider: 'VulDB' });
    // Two exact affected versions.
    expect(rows.product.map((r) => [r.version_start_including, r.version_end_including])).toEqual([
      ['15.5.0', '15.5.0'],
      ['15.5.1', '15.5.1'],
    ]);
  });

  it('CVE-2023-5129: rejected record with reason and dates, nothing else', () => {
    const { rows } = stage('CVE-2023-5129.rejected.json');
    expect(rows.cve5[0]).toMatchObject({
      state: 'REJECTED',
      date_rejected: '2023-09-27T20:37:35.338Z',
      rejected_reason: 'This CVE ID has been rejected or withdrawn by its CVE Numbering Authority.',
      description: null,
      title: null,
      adp_kev_date_added: null,
    });
    expect(rows.cvss.length + rows.reference.length + rows.product.length + rows.cve_cwe.length).toBe(0);
  });

  it('CVE-2024-1086 (cvelistV5 copy): the CNA description without the two line breaks it ends with; a title likewise, none when blank', () => {
    const record = sample('CVE-2024-1086.json');
    expect(record.containers.cna.descriptions[0].value.endsWith('dff660.\n\n')).toBe(true);
    const sink = new MemoryStageSink();
    stageCve5Record(record, 'raw/cvelist/cves/2024/1xxx/CVE-2024-1086.json', sink);
    const staged = sink.rows.cve5[0] as { description: string; title: string };
    expect(staged.description.startsWith('A use-after-free vulnerability')).toBe(true);
    expect(staged.description.endsWith('f342de4e2f33e0e39165d8639387aa6c19dff660.')).toBe(true);
    expect(staged.title).toBe("Use-after-free in Linux kernel's netfilter: nf_tables component");

    record.containers.cna.title = '\n  Use-after-free in nf_tables \n';
    record.containers.cna.descriptions = [{ lang: 'en', value: ' \n ' }, { lang: 'de', value: 'Ein Use-after-free.' }];
    const blank = new MemoryStageSink();
    stageCve5Record(record, 'raw/cvelist/cves/2024/1xxx/CVE-2024-1086.json', blank);
    // A blank English text is no text: the merge then takes another feed's description.
    expect(blank.rows.cve5[0]).toMatchObject({ title: 'Use-after-free in nf_tables', description: null });
  });

  it('an English text tagged en_US (the CVE 5 schema allows `_`) is chosen over one listed before it', () => {
    const record = sample('CVE-2024-1086.json');
    record.containers.cna.descriptions = [{ lang: 'es', value: 'Una vulnerabilidad.' }, { lang: 'en_US', value: 'A vulnerability.' }];
    const sink = new MemoryStageSink();
    stageCve5Record(record, 'raw/cvelist/cves/2024/1xxx/CVE-2024-1086.json', sink);
    expect(sink.rows.cve5[0]).toMatchObject({ description: 'A vulnerability.' });
    // A language that merely starts with "en" is not English.
    record.containers.cna.descriptions = [{ lang: 'es', value: 'Una vulnerabilidad.' }, { lang: 'eng', value: 'Not BCP 47.' }];
    const other = new MemoryStageSink();
    stageCve5Record(record, 'raw/cvelist/cves/2024/1xxx/CVE-2024-1086.json', other);
    expect(other.rows.cve5[0]).toMatchObject({ description: 'Una vulnerabilidad.' });
  });

  it('CVE-1999-0001: legacy alphabetical record, zone-less dates as UTC, n/a and text problem types skipped', () => {
    const { rows } = stage('CVE-1999-0001.json');
    expect(rows.cve5[0]).toMatchObject({ date_published: '2000-02-04T05:00:00.000Z', cna_date_updated: '2005-12-17T00:00:00.000Z', state: 'PUBLISHED' });
    expect(rows.product).toHaveLength(0);
    expect(rows.cve_cwe).toHaveLength(0);
    expect(rows.reference.find((r) => r.url === 'http://www.osvdb.org/5707')).toMatchObject({ name: '5707', tags: ['vdb-entry', 'x_refsource_OSVDB'], provider: 'mitre' });
  });

  it('CVE-2024-45519: the CWE comes from CISA-ADP; a non-canonical vector keeps its published score', () => {
    const { rows } = stage('vulnrichment-CVE-2024-45519.json');
    expect(rows.cve_cwe).toEqual([{ cve_id: 'CVE-2024-45519', cwe_id: 'CWE-284', feed: 'cve5', provider: 'CISA-ADP', file: join(RECORDS, 'vulnrichment-CVE-2024-45519.json') }]);
    expect(rows.cvss[0]).toMatchObject({ base_score: 10, vector: 'CVSS:3.1/AC:L/AV:N/A:H/C:H/I:H/PR:N/S:C/UI:N' });
    expect(rows.product).toHaveLength(4);
    expect(rows.product[0]).toMatchObject({ vendor: 'zimbra', product: 'zimbra_collaboration_suite', version_start_including: '0', version_end_including: '8.8.15' });
    expect(rows.ssvc[0]).toMatchObject({ exploitation: 'active', automatable: 'yes', technical_impact: 'total' });
  });

  it('CVE-2024-3931: lower-case poc SSVC without KEV', () => {
    const { rows } = stage('vulnrichment-CVE-2024-3931.json');
    expect(rows.ssvc[0]).toMatchObject({ exploitation: 'poc', automatable: 'yes', technical_impact: 'partial' });
    expect(rows.cve5[0]!.adp_kev_date_added).toBeNull();
  });

  it('an ADP metric is role adp with the ADP container time; a missing score is computed from its vector', () => {
    const rec = sample('vulnrichment-CVE-2024-45519.json');
    rec.containers.adp[0].metrics.push({ cvssV3_1: { version: '3.1', vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' } });
    const sink = new MemoryStageSink();
    stageCve5Record(rec, 'adp.json', sink);
    expect(sink.rows.cvss.find((r) => r.role === 'adp')).toMatchObject({ provider: 'CISA-ADP', base_score: 9.8, base_severity: null, modified: '2024-10-03T13:52:46.917Z' });
  });

  it('scores a v4 vector published without its score by the base metrics alone (CVSS-B), threat metrics aside', () => {
    const rec = sample('CVE-2025-14617.json');
    const metric = rec.containers.cna.metrics.find((m: Record<string, unknown>) => m.cvssV4_0).cvssV4_0;
    // VulDB publishes 4.8 for this vector, which carries E:P; scored with E:P it is 1.9 (CVSS-BT).
    expect(metric.vectorString).toContain('/E:P');
    const published = metric.baseScore;
    delete metric.baseScore;
    const sink = new MemoryStageSink();
    stageCve5Record(rec, 'x.json', sink);
    expect(sink.rows.cvss.find((r) => r.version === '4.0')!.base_score).toBe(published);
  });

  it('a CNA without providerMetadata.dateUpdated falls back to the record dateUpdated', () => {
    const rec = sample('CVE-2025-14617.json');
    delete rec.containers.cna.providerMetadata.dateUpdated;
    rec.cveMetadata.dateUpdated = '2026-01-01T00:00:00.000Z';
    const sink = new MemoryStageSink();
    stageCve5Record(rec, 'x.json', sink);
    expect(new Set(sink.rows.cvss.map((r) => r.modified))).toEqual(new Set(['2026-01-01T00:00:00.000Z']));
    expect(sink.rows.cve5[0]!.cna_date_updated).toBeNull();
  });
});

describe('CVE 5 folders and archives', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cve5-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stages every record of a tree, skipping the delta index', async () => {
    const sink = new MemoryStageSink();
    const progress = noProgress();
    expect(await cve5Parser.stage(RECORDS, sink, progress)).toEqual({ files: 9, records: 9 });
    expect(progress.ticks).toBe(9);
    // Both copies of CVE-2024-1086 (cvelistV5 and vulnrichment) are staged.
    expect(sink.rows.cve5.filter((r) => r.cve_id === 'CVE-2024-1086')).toHaveLength(2);
  });

  it('reads records inside a zip, naming the member in `file`', async () => {
    const zipDir = join(dir, 'zip');
    const record = readFileSync(join(RECORDS, 'CVE-2023-4966.json'));
    const delta = readFileSync(join(RECORDS, 'delta.json'));
    const zip = zipSync({ 'cves/2023/4xxx/CVE-2023-4966.json': record, 'cves/delta.json': delta });
    mkdirSync(zipDir);
    writeFileSync(join(zipDir, '2026-10-01_delta_CVEs_at_0100Z.zip'), zip);
    const sink = new MemoryStageSink();
    expect(await cve5Parser.stage(zipDir, sink, noProgress())).toEqual({ files: 1, records: 1 });
    expect(sink.rows.cve5[0]!.file).toBe(`${join(zipDir, '2026-10-01_delta_CVEs_at_0100Z.zip')}!cves/2023/4xxx/CVE-2023-4966.json`);
    expect(sink.rows.cve5[0]!.adp_kev_date_added).toBe('2023-10-18');
  });

  it('malformed JSON names the file', async () => {
    const bad = join(dir, 'bad');
    mkdirSync(bad);
    writeFileSync(join(bad, 'CVE-2024-9999.json'), '{"dataType": "CVE_RECORD", ');
    await expect(cve5Parser.stage(bad, new MemoryStageSink(), noProgress())).rejects.toThrow(/CVE-2024-9999\.json: malformed JSON/);
  });
});

describe('CVE 5 malformed records', () => {
  it('no cveMetadata, or an invalid cveId, names the file', () => {
    const rec = sample('CVE-2024-3400.json');
    delete rec.cveMetadata;
    expect(stageError(rec).message).toMatch(/CVE-2024-3400\.json: not a CVE 5 record \(no cveMetadata object\)/);
    const badId = sample('CVE-2024-3400.json');
    badId.cveMetadata.cveId = 'CVE-24-1';
    expect(stageError(badId).message).toMatch(/missing or invalid cveMetadata\.cveId \("CVE-24-1"\)/);
  });

  it('missing state, missing CNA container and unreadable dates name the record', () => {
    const noState = sample('CVE-2024-3400.json');
    delete noState.cveMetadata.state;
    expect(stageError(noState).message).toMatch(/record CVE-2024-3400: missing cveMetadata\.state/);
    const noCna = sample('CVE-2024-3400.json');
    delete noCna.containers.cna;
    expect(stageError(noCna).record).toBe('CVE-2024-3400');
    const badDate = sample('CVE-2024-3400.json');
    badDate.cveMetadata.dateUpdated = 'not a date';
    expect(stageError(badDate).message).toMatch(/record CVE-2024-3400: unreadable cveMetadata\.dateUpdated/);
  });

  it('an impossible date names the record and the field: it failed later, in DuckDB, naming a staging file', () => {
    const feb31 = sample('CVE-2024-3400.json');
    feb31.cveMetadata.dateUpdated = '2024-02-31T07:20:00.707Z';
    expect(stageError(feb31).message).toBe(
      'raw/cvelist/cves/2024/3xxx/CVE-2024-3400.json: record CVE-2024-3400: unreadable cveMetadata.dateUpdated ("2024-02-31T07:20:00.707Z"): day 31 does not exist in 2024-02',
    );
    const cna = sample('CVE-2024-3400.json');
    cna.containers.cna.providerMetadata.dateUpdated = '0000-01-01T00:00:00.000Z';
    expect(stageError(cna).message).toMatch(/record CVE-2024-3400: unreadable cna\.providerMetadata\.dateUpdated .*year 0000 is outside 1000–9999/);
  });

  it('a metric with a non-numeric score and no usable vector', () => {
    const rec = sample('CVE-2025-14617.json');
    rec.containers.cna.metrics[3].cvssV2_0 = { version: '2.0', baseScore: 'n/a' };
    const err = stageError(rec, 'cves/2025/14xxx/CVE-2025-14617.json');
    expect(err.message).toMatch(/CVE-2025-14617\.json: record CVE-2025-14617: cna\.metrics\[3\]\.cvssV2_0: baseScore "n\/a" is not a number/);
  });

  it('a vector that does not parse is dropped beside a valid score, and named when there is no score', () => {
    const rec = sample('CVE-2025-14617.json');
    rec.containers.cna.metrics[3].cvssV2_0 = { version: '2.0', baseScore: 5, vectorString: 'AV:N/AC:Z/Au:N/C:P/I:N/A:N' };
    const sink = new MemoryStageSink();
    stageCve5Record(rec, 'cves/2025/14xxx/CVE-2025-14617.json', sink);
    const v2 = sink.rows.cvss.filter((r) => r.version === '2.0');
    expect(v2.map((r) => [r.vector, r.base_score])).toEqual([[null, 5]]);
    delete rec.containers.cna.metrics[3].cvssV2_0.baseScore;
    const err = stageError(rec, 'cves/2025/14xxx/CVE-2025-14617.json');
    expect(err.message).toMatch(/record CVE-2025-14617: cna\.metrics\[3\]\.cvssV2_0: no baseScore, and vectorString "AV:N\/AC:Z\/Au:N\/C:P\/I:N\/A:N" does not parse as CVSS 2\.0/);
  });

  it('the record names itself: a file called CVE-2024-3400.json holding CVE-2024-9999999 is staged as CVE-2024-9999999, with its file', () => {
    const rec = sample('CVE-2024-3400.json');
    rec.cveMetadata.cveId = 'CVE-2024-9999999';
    const sink = new MemoryStageSink();
    stageCve5Record(rec, 'cves/2024/3xxx/CVE-2024-3400.json', sink);
    expect(sink.rows.cve5.map((r) => [r.cve_id, r.file])).toEqual([['CVE-2024-9999999', 'cves/2024/3xxx/CVE-2024-3400.json']]);
  });

  it('a document that is not a CVE record', () => {
    expect(stageError({ dataType: 'CVE_DELTA' }).message).toMatch(/dataType "CVE_DELTA"/);
    expect(stageError([]).message).toMatch(/expected a JSON object/);
  });
});
