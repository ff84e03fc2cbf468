import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { RawFormatError } from '../../lib/errors.ts';
import type { Progress } from '../../lib/log.ts';
import { metricRole, nvdParser, stageNvdDocument } from '../../cli/parse/nvd.ts';
import { toUtcTimestamp } from '../../cli/parse/common.ts';
import { parseCpe22, parseCpe23 } from '../../cli/parse/nvd-cpe.ts';
import { feedTimestamp } from '../../cli/parse/nvd-timestamp.ts';
import { MemoryStageSink } from '../../cli/stage/writer.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/nvd/', import.meta.url));
const RECORDS = join(FIXTURES, 'records');
const PAGES = join(FIXTURES, 'page');

function countingProgress(): Progress & { ticks: number } {
  const p = { ticks: 0, tick: (n = 1) => void (p.ticks += n), setTotal: () => {}, stop: () => {} };
  return p;
}

/** Stages one real sample file (a bare `cve` object, fkie-cad layout). */
function stageRecord(name: string): MemoryStageSink {
  const sink = new MemoryStageSink();
  const file = join(RECORDS, name);
  expect(stageNvdDocument(JSON.parse(readFileSync(file, 'utf8')), file, sink)).toBe(1);
  return sink;
}

function sample(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(RECORDS, name), 'utf8')) as Record<string, unknown>;
}

function page(records: unknown[]): Record<string, unknown> {
  return {
    resultsPerPage: records.length,
    startIndex: 0,
    totalResults: records.length,
    format: 'NVD_CVE',
    version: '2.0',
    timestamp: '2026-10-02T08:00:00.000',
    vulnerabilities: records.map((cve) => ({ cve })),
  };
}

function stageError(json: unknown, file = 'raw/nvd/page-7.json'): RawFormatError {
  try {
    stageNvdDocument(json, file, new MemoryStageSink());
  } catch (err) {
    expect(err).toBeInstanceOf(RawFormatError);
    return err as RawFormatError;
  }
  throw new Error('expected a RawFormatError');
}

describe('NVD metrics and roles', () => {
  it('CVE-2023-4966: NVD 7.5 as role nvd, Citrix 9.4 as role cna, both with the record lastModified', () => {
    const { rows } = stageRecord('CVE-2023-4966.json');
    const byRole = Object.fromEntries(rows.cvss.map((r) => [r.role, r]));
    expect(rows.cvss).toHaveLength(2);
    expect(byRole.nvd).toMatchObject({ provider: 'nvd@nist.gov', version: '3.1', base_score: 7.5, base_severity: 'HIGH', feed: 'nvd' });
    expect(byRole.cna).toMatchObject({ provider: 'secure@citrix.com', base_score: 9.4, base_severity: 'CRITICAL' });
    expect(byRole.cna!.vector).toBe('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:L');
    expect(new Set(rows.cvss.map((r) => r.modified))).toEqual(new Set(['2025-10-24T13:42:55.550Z']));
  });

  it('CVE-2026-86345: a Primary metric whose source is the CNA gets role cna', () => {
    const { rows } = stageRecord('CVE-2026-86345.json');
    expect(rows.cvss.map((r) => [r.role, r.provider, r.base_score])).toEqual([['cna', 'secalert@redhat.com', 9]]);
  });

  it('CVE-2017-0144: CISA-ADP metric is adp; v2 severity is read from the metric object', () => {
    const { rows } = stageRecord('CVE-2017-0144.json');
    expect(rows.cvss.map((r) => `${r.version}:${r.role}:${r.base_score}`).sort()).toEqual(['2.0:nvd:9.3', '3.1:adp:8.8', '3.1:nvd:8.8']);
    expect(rows.cvss.find((r) => r.version === '2.0')!.base_severity).toBe('HIGH');
  });

  it('CVE-2026-103764: v4.0 and a CNA v3.1 typed Primary are both cna', () => {
    const { rows } = stageRecord('CVE-2026-103764.json');
    expect(rows.cvss.map((r) => `${r.version}:${r.role}:${r.base_score}`).sort()).toEqual(['3.1:cna:9.8', '4.0:cna:9.3']);
  });

  it('metricRole follows the source, not the type', () => {
    expect(metricRole('nvd@nist.gov', 'secure@citrix.com')).toBe('nvd');
    expect(metricRole('secure@citrix.com', 'secure@citrix.com')).toBe('cna');
    expect(metricRole('134c704f-9b21-4f2e-91b3-4a467353bcc0', 'secure@citrix.com')).toBe('adp');
    expect(metricRole(null, null)).toBe('adp');
  });
});

describe('NVD record fields', () => {
  it('CVE-2023-4966: nvd_cve row with KEV mirror, non-breaking spaces kept, UTC timestamps', () => {
    const { rows } = stageRecord('CVE-2023-4966.json');
    expect(rows.nvd_cve).toHaveLength(1);
    const row = rows.nvd_cve[0]!;
    expect(row).toMatchObject({
      cve_id: 'CVE-2023-4966',
      published: '2023-10-10T14:15:10.977Z',
      vuln_status: 'Analyzed',
      source_identifier: 'secure@citrix.com',
      kev_date_added: '2023-10-18',
      kev_due_date: '2023-11-08',
      cve_tags: [],
      file: join(RECORDS, 'CVE-2023-4966.json'),
    });
    expect(row.description).toContain('\u00a0');
    expect(rows.cve_cwe.map((r) => `${r.cwe_id}@${r.provider}`).sort()).toEqual(['CWE-119@secure@citrix.com', 'NVD-CWE-noinfo@nvd@nist.gov']);
    expect(rows.reference.find((r) => r.provider === '134c704f-9b21-4f2e-91b3-4a467353bcc0')!.tags).toEqual(['US Government Resource']);
  });

  it('CVE-1999-0001: no cveTags key, references without tags, every child row carries the file', () => {
    const { rows } = stageRecord('CVE-1999-0001.json');
    expect(rows.nvd_cve[0]!.cve_tags).toEqual([]);
    expect(rows.reference.length).toBeGreaterThan(0);
    expect(rows.reference.every((r) => Array.isArray(r.tags) && r.tags.length === 0 && r.name === null)).toBe(true);
    const file = join(RECORDS, 'CVE-1999-0001.json');
    for (const table of ['cvss', 'cve_cwe', 'reference', 'product'] as const) {
      expect(rows[table].every((r) => r.file === file)).toBe(true);
    }
    expect(rows.product).toHaveLength(23);
  });

  it('CVE-2024-3273: cveTags flattened; the CNA Primary weakness is kept', () => {
    const { rows } = stageRecord('CVE-2024-3273.json');
    expect(rows.nvd_cve[0]!.cve_tags).toEqual(['unsupported-when-assigned']);
    expect(rows.cve_cwe).toEqual([{ cve_id: 'CVE-2024-3273', cwe_id: 'CWE-77', feed: 'nvd', provider: 'cna@vuldb.com', file: join(RECORDS, 'CVE-2024-3273.json') }]);
  });

  it('rejected records still give their nvd_cve row', () => {
    const { rows } = stageRecord('CVE-2023-5129.rejected.json');
    expect(rows.nvd_cve).toHaveLength(1);
    expect(rows.nvd_cve[0]!.vuln_status).toBe('Rejected');
    expect(rows.nvd_cve[0]!.description).toMatch(/^\*\* REJECT \*\*/);
    expect(rows.cvss).toHaveLength(0);
    expect(rows.reference).toHaveLength(0);
  });

  it('CVE-2026-12544: ssvcV203 lower-camel keys; affectedData with CPE 2.2 URIs and package', () => {
    const { rows } = stageRecord('CVE-2026-12544.json');
    expect(rows.ssvc).toEqual([
      { cve_id: 'CVE-2026-12544', feed: 'nvd', exploitation: 'none', automatable: 'no', technical_impact: 'total', timestamp: '2026-10-01T17:59:19.633Z', file: join(RECORDS, 'CVE-2026-12544.json') },
    ]);
    // Every entry is defaultStatus affected with only unaffected versions: one row for its names
    // and one for each of its other CPEs, none with bounds.
    expect(rows.product).toHaveLength(24);
    expect(rows.product.every((r) => r.version_start_including === null && r.version_end_excluding === null)).toBe(true);
    // The CPEs' own vendor/product: what /cves/match?vendor=redhat&product=satellite asks for.
    const keys = new Set(rows.product.map((r) => `${r.vendor}:${r.product}`));
    expect(keys).toEqual(
      new Set([
        'red hat:red hat satellite 6.16 for rhel 8',
        'red hat:red hat satellite 6.16 for rhel 9',
        'red hat:red hat satellite 6.18 for rhel 9',
        'red hat:red hat satellite 6.19 for rhel 9',
        'red hat:red hat satellite 6',
        'redhat:satellite',
        'redhat:satellite_capsule',
        'redhat:satellite_utils',
      ]),
    );
    // Every CPE is kept, not only each entry's first.
    expect(new Set(rows.product.map((r) => r.cpe))).toEqual(
      new Set([
        ...['el8', 'el9'].flatMap((el) => ['satellite', 'satellite_capsule', 'satellite_utils'].map((p) => `cpe:/a:redhat:${p}:6.16::${el}`)),
        ...['6.18', '6.19'].flatMap((v) => ['satellite', 'satellite_capsule', 'satellite_utils'].map((p) => `cpe:/a:redhat:${p}:${v}::el9`)),
        'cpe:/a:redhat:satellite:6',
      ]),
    );
    expect(rows.product[0]).toMatchObject({
      vendor: 'red hat',
      product: 'red hat satellite 6.16 for rhel 8',
      cpe: 'cpe:/a:redhat:satellite:6.16::el8',
      package_name: 'foreman',
      collection_url: 'https://access.redhat.com/downloads/content/package-browser/',
      version_start_including: null,
      version_end_excluding: null,
    });
  });

  it('CVE-2026-103764: affectedData packageURL becomes purl, with the affected range', () => {
    const { rows } = stageRecord('CVE-2026-103764.json');
    expect(rows.product).toEqual([
      expect.objectContaining({ vendor: 'kvcache-ai', product: 'mooncake', purl: 'pkg:pypi/mooncake-transfer-engine', version_start_including: '0', version_end_excluding: '0.3.13' }),
    ]);
    // No packageName: the package is the one its purl names, in OSV's spelling of the ecosystem.
    expect(rows.product[0]).toMatchObject({ package_name: 'mooncake-transfer-engine', ecosystem: 'PyPI' });
  });

  it('CVE-2017-0144: only vulnerable CPE matches, never the platforms of AND configurations', () => {
    const { rows } = stageRecord('CVE-2017-0144.json');
    expect(rows.product).toHaveLength(16);
    expect(rows.product.some((r) => r.product === 'windows_10_1507')).toBe(false);
    expect(rows.product[0]).toMatchObject({ vendor: 'microsoft', product: 'server_message_block', cpe: 'cpe:2.3:a:microsoft:server_message_block:1.0:*:*:*:*:*:*:*' });
  });

  it('a negated node names what must be absent: its matches are never affected products, whatever their flag', () => {
    // CPE Applicability Language (NISTIR 7698): a negated test is true when its CPEs are absent,
    // so what it names cannot be the vulnerable part of the configuration. Hand-made from the
    // real CVE-2025-29927: Next.js, where not running on Vercel's own hosting.
    const rec = sample('CVE-2025-29927.json') as { configurations: Array<Record<string, unknown>> };
    rec.configurations = [{
      operator: 'AND',
      nodes: [
        { operator: 'OR', negate: false, cpeMatch: [{ vulnerable: true, criteria: 'cpe:2.3:a:vercel:next.js:*:*:*:*:*:node.js:*:*', versionEndExcluding: '12.3.5', matchCriteriaId: '0' }] },
        { operator: 'OR', negate: true, cpeMatch: [{ vulnerable: true, criteria: 'cpe:2.3:a:vercel:vercel:-:*:*:*:*:*:*:*', matchCriteriaId: '1' }] },
      ],
    }, {
      negate: true,
      nodes: [{ operator: 'OR', negate: false, cpeMatch: [{ vulnerable: true, criteria: 'cpe:2.3:a:vercel:turbo:-:*:*:*:*:*:*:*', matchCriteriaId: '2' }] }],
    }];
    const sink = new MemoryStageSink();
    stageNvdDocument(rec, 'raw/nvd/CVE-2025-29927.json', sink);
    expect(sink.rows.product.map((r) => `${r.vendor}/${r.product}`)).toEqual(['vercel/next.js']);
  });
});

describe('NVD response pages', () => {
  it('stages every record of every page (plain and .json.gz) and ticks per record', async () => {
    const sink = new MemoryStageSink();
    const progress = countingProgress();
    expect(await nvdParser.stage(PAGES, sink, progress)).toEqual({ files: 2, records: 4 });
    expect(progress.ticks).toBe(4);
    // Both versions of CVE-2024-3400 are emitted; SQL keeps the latest.
    const versions = sink.rows.nvd_cve.filter((r) => r.cve_id === 'CVE-2024-3400');
    expect(versions.map((r) => r.vuln_status).sort()).toEqual(['Analyzed', 'Awaiting Analysis']);
    expect(new Set(versions.map((r) => r.file))).toEqual(new Set([join(PAGES, 'nvd-page-0.json'), join(PAGES, 'nvd-page-1.json.gz')]));
  });

  it('hand-made record: computed score, CPE escapes, SSVC spellings, English text, n/a skipped', async () => {
    const sink = new MemoryStageSink();
    await nvdParser.stage(PAGES, sink, countingProgress());
    const only = <T extends { cve_id: string }>(rows: T[]) => rows.filter((r) => r.cve_id === 'CVE-2099-0001');
    const cve = only(sink.rows.nvd_cve)[0]!;
    expect(cve.description).toBe('Hand-made record: Acme Widget before 2.0 allows XSS.');
    expect(cve.cve_tags).toEqual(['disputed', 'unsupported-when-assigned']);
    expect(cve.kev_vulnerability_name).toBe('Acme Widget Improper Neutralization Vulnerability');
    expect(only(sink.rows.cvss).find((r) => r.role === 'cna')).toMatchObject({ base_score: 9.8, base_severity: 'CRITICAL' });
    // v2's userInteractionRequired is kept (v2 vectors have no UI metric); null on v3/v4 rows.
    expect(only(sink.rows.cvss).find((r) => r.version === '2.0')).toMatchObject({ vector: 'AV:N/AC:M/Au:N/C:N/I:P/A:N', user_interaction_required: true });
    expect(only(sink.rows.cvss).filter((r) => r.version !== '2.0').every((r) => r.user_interaction_required === null)).toBe(true);
    expect(only(sink.rows.ssvc)[0]).toMatchObject({ exploitation: 'poc', automatable: 'yes', technical_impact: 'partial' });
    expect(only(sink.rows.cve_cwe).map((r) => r.cwe_id)).toEqual(['CWE-79', 'CWE-79', 'NVD-CWE-Other']);
    const products = only(sink.rows.product).map((r) => `${r.vendor}/${r.product}/${r.version_start_including}/${r.version_end_excluding}`);
    expect(products).toEqual(['acme:corp/widget.pro/1.0/2.0', 'microsoft/visual_c++/null/null', 'acme/widget/0/2.0']);
  });
});

describe('CPE names', () => {
  it('splits CPE 2.3 on unescaped colons only and unescapes', () => {
    expect(parseCpe23('cpe:2.3:a:acme\\:corp:widget\\.pro:1.0:*:*:*:*:*:*:*')).toEqual({ part: 'a', vendor: 'acme:corp', product: 'widget.pro', version: '1.0' });
    expect(parseCpe23('cpe:2.3:a:vercel:next.js:*:*:*:*:*:node.js:*:*')).toEqual({ part: 'a', vendor: 'vercel', product: 'next.js', version: null });
    expect(parseCpe23('cpe:2.3:a:too:short')).toBeNull();
    expect(parseCpe22('cpe:/o:redhat:enterprise_linux:8')).toEqual({ part: 'o', vendor: 'redhat', product: 'enterprise_linux', version: '8' });
  });
});

describe('feed timestamps', () => {
  it('the fast path gives exactly what the shared normaliser gives', () => {
    const values = [
      '2023-10-10T14:15:10.977', // NVD
      '2024-04-05T17:40:30.117Z', // CVE Services
      '2024-04-17T04:00:13.543064Z', // CISA SSVC
      '2000-02-04T05:00:00', // legacy CVE 5
      '2024-10-02T21:18:17.1',
      '2024-01-31T12:14:34.073+00:00',
      '2023-13-01T00:00:00Z',
      'yesterday',
      null,
    ];
    for (const v of values) expect(feedTimestamp(v)).toBe(toUtcTimestamp(v));
    expect(feedTimestamp('2000-02-04T05:00:00')).toBe('2000-02-04T05:00:00.000Z');
    expect(feedTimestamp('2023-13-01T00:00:00Z')).toBeNull();
  });

  it('a day its month lacks, hour 24 or a year outside 1000–9999 is no timestamp, on either path', () => {
    // V8's Date.parse rolls these over (2024-02-30 → 2024-03-01) or reads them (year 0).
    const impossible = [
      '2024-02-30T08:15:33.227', // NVD shape
      '2026-04-31T10:00:00.000',
      '2024-02-31T07:20:00.707Z', // CVE Services shape
      '2023-02-29T00:00:00',
      '1900-02-29T00:00:00',
      '2024-01-01T24:00:00',
      '0000-01-01T00:00:00.000',
      '0999-12-31T23:59:59Z',
      '99999-01-01T00:00:00.000',
      '2024-02-30', // KEV, Exploit-DB
      '2026-02-30T00:00:00+00:00', // CSAF
      '1000-01-01T00:00:00+01:00', // 0999 in UTC
      'Feb 30 2024',
    ];
    for (const v of impossible) {
      expect(toUtcTimestamp(v), v).toBeNull();
      expect(feedTimestamp(v), v).toBeNull();
    }
    expect(feedTimestamp('2024-02-29T00:00:00')).toBe('2024-02-29T00:00:00.000Z');
    expect(feedTimestamp('2000-02-29T23:59:59.999Z')).toBe('2000-02-29T23:59:59.999Z');
    expect(feedTimestamp('1000-01-01T00:00:00')).toBe('1000-01-01T00:00:00.000Z');
    expect(toUtcTimestamp('9999-12-31')).toBe('9999-12-31T00:00:00.000Z');
  });
});

describe('NVD malformed input', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nvd-bad-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a page saved with a UTF-8 byte order mark is read (it was refused as malformed JSON)', async () => {
    const bomDir = mkdtempSync(join(tmpdir(), 'nvd-bom-'));
    try {
      writeFileSync(join(bomDir, 'page-0001.json'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(page([sample('CVE-2023-4966.json')])))]));
      const sink = new MemoryStageSink();
      expect(await nvdParser.stage(bomDir, sink, countingProgress())).toEqual({ files: 1, records: 1 });
      expect(sink.rows.nvd_cve.map((r) => r.cve_id)).toEqual(['CVE-2023-4966']);
    } finally {
      rmSync(bomDir, { recursive: true, force: true });
    }
  });

  it('malformed JSON names the file', async () => {
    writeFileSync(join(dir, 'broken-page.json'), '{"resultsPerPage": 1, "vulnerabilities": [');
    await expect(nvdParser.stage(dir, new MemoryStageSink(), countingProgress())).rejects.toThrow(/broken-page\.json: malformed JSON/);
  });

  it('a record without id is named by its position', () => {
    const noId = { ...sample('CVE-2025-39800.json') };
    delete noId.id;
    const err = stageError(page([sample('CVE-2023-4966.json'), noId]));
    expect(err.message).toContain('raw/nvd/page-7.json');
    expect(err.record).toBe('vulnerabilities[1]');
    expect(err.message).toMatch(/missing or invalid CVE id/);
  });

  it('missing published or unreadable lastModified names the CVE', () => {
    const noPublished = { ...sample('CVE-2025-39800.json') };
    delete noPublished.published;
    expect(stageError(page([noPublished])).message).toMatch(/page-7\.json: record CVE-2025-39800: missing published$/);
    const badModified = { ...sample('CVE-2025-39800.json'), lastModified: 'yesterday' };
    expect(stageError(badModified).message).toMatch(/record CVE-2025-39800: unreadable lastModified \("yesterday"\): not a date-time/);
  });

  it('an impossible date or a year outside 1000–9999 names the file, the CVE, the field and why', () => {
    const feb30 = { ...sample('CVE-2025-39800.json'), published: '2024-02-30T08:15:33.227' };
    expect(stageError(page([feb30])).message).toBe(
      'raw/nvd/page-7.json: record CVE-2025-39800: unreadable published ("2024-02-30T08:15:33.227"): day 30 does not exist in 2024-02',
    );
    const apr31 = { ...sample('CVE-2025-39800.json'), lastModified: '2026-04-31T10:00:00.000' };
    expect(stageError(page([apr31])).message).toMatch(/record CVE-2025-39800: unreadable lastModified \("2026-04-31T10:00:00\.000"\): day 31 does not exist in 2026-04$/);
    const year0 = { ...sample('CVE-2025-39800.json'), published: '0000-01-01T00:00:00.000' };
    expect(stageError(page([year0])).message).toMatch(/record CVE-2025-39800: unreadable published \("0000-01-01T00:00:00\.000"\): year 0000 is outside 1000–9999$/);
    const kev = { ...sample('CVE-2023-4966.json'), cisaExploitAdd: '2023-02-30' };
    expect(stageError(page([kev])).message).toMatch(/record CVE-2023-4966: unreadable cisaExploitAdd \("2023-02-30"\): day 30/);
  });

  it('vulnerabilities that is not an array, or an item without cve', () => {
    expect(stageError({ ...page([]), vulnerabilities: {} }).message).toMatch(/page-7\.json: `vulnerabilities` is not an array/);
    expect(stageError({ ...page([]), vulnerabilities: [{ notCve: 1 }] }).record).toBe('vulnerabilities[0]');
  });

  it('a baseScore that is there but no score is refused, vector or not, naming the record, the metric and what is wrong', () => {
    const withScore = (score: unknown, keepVector = true) => {
      const rec = sample('CVE-2023-4966.json') as { metrics: { cvssMetricV31: Array<{ cvssData: Record<string, unknown> }> } };
      rec.metrics.cvssMetricV31[1]!.cvssData.baseScore = score;
      if (!keepVector) delete rec.metrics.cvssMetricV31[1]!.cvssData.vectorString;
      return stageError(page([rec]));
    };
    const err = withScore('high');
    expect(err.record).toBe('CVE-2023-4966');
    expect(err.message).toMatch(/metrics\.cvssMetricV31\[1\]: baseScore "high" is not a number$/);
    // 11.5 is a number: "is not a number" said the wrong thing. Nor is the vector's 7.5 put in its place unsaid.
    expect(withScore(11.5).message).toMatch(/metrics\.cvssMetricV31\[1\]: baseScore 11\.5 is out of range 0–10$/);
    expect(withScore(-5, false).message).toMatch(/metrics\.cvssMetricV31\[1\]: baseScore -5 is out of range 0–10$/);
    expect(withScore(undefined, false).message).toMatch(/metrics\.cvssMetricV31\[1\]: no baseScore, and no vectorString to compute it from$/);
  });

  it('a vector that does not parse is dropped beside a valid baseScore (it was published as is; one typo must not stop the build), and named when no score is there', () => {
    const withVector = (vector: string, score: unknown = 7.5) => {
      const rec = sample('CVE-2023-4966.json') as { metrics: { cvssMetricV31: Array<{ source: string; cvssData: Record<string, unknown> }> } };
      rec.metrics.cvssMetricV31[1]!.cvssData.vectorString = vector;
      rec.metrics.cvssMetricV31[1]!.cvssData.baseScore = score;
      return { rec, source: rec.metrics.cvssMetricV31[1]!.source };
    };
    for (const garbage of ['CVSS:3.1/AV:Z/<script>', 'CVSS:3.1/nonsense', 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H', '<script>']) {
      const { rec, source } = withVector(garbage);
      const sink = new MemoryStageSink();
      stageNvdDocument(page([rec]), 'raw/nvd/page-7.json', sink);
      const metric = sink.rows.cvss.find((r) => r.version === '3.1' && r.provider === source)!;
      expect(metric.vector, garbage).toBeNull();
      expect(metric.base_score, garbage).toBe(7.5);
      expect(JSON.stringify(sink.rows)).not.toContain(JSON.stringify(garbage));
    }
    expect(stageError(page([withVector('CVSS:3.1/AV:Z/<script>', null).rec])).message).toBe(
      'raw/nvd/page-7.json: record CVE-2023-4966: metrics.cvssMetricV31[1]: no baseScore, and vectorString "CVSS:3.1/AV:Z/<script>" does not parse as CVSS 3.1: Unknown component value Z for component AV',
    );
    expect(stageError(page([withVector('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H', null).rec])).message).toMatch(/vectorString ".*" lacks a CVSS 3\.1 base metric$/);
    expect(stageError(page([withVector('<script>', 'high').rec])).message).toMatch(/metrics\.cvssMetricV31\[1\]: baseScore "high" is not a number/);
  });

  it('a missing baseScore with a valid vector is computed, not an error', () => {
    const rec = sample('CVE-2023-4966.json') as { metrics: { cvssMetricV31: Array<{ cvssData: Record<string, unknown> }> } };
    delete rec.metrics.cvssMetricV31[1]!.cvssData.baseScore;
    const sink = new MemoryStageSink();
    stageNvdDocument(rec, 'x.json', sink);
    expect(sink.rows.cvss.find((r) => r.role === 'nvd')!.base_score).toBe(7.5);
  });

  it('a vulnerable cpeMatch whose criteria is not a CPE 2.3 name', () => {
    const rec = sample('CVE-2025-29927.json') as { configurations: Array<{ nodes: Array<{ cpeMatch: Array<Record<string, unknown>> }> }> };
    rec.configurations[0]!.nodes[0]!.cpeMatch[0]!.criteria = 'vercel next.js';
    expect(stageError(rec).message).toMatch(/record CVE-2025-29927: cpeMatch criteria is not a CPE 2.3 name/);
  });
});
