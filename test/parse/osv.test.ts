import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RawFormatError } from '../../lib/errors.ts';
import { osvParser, parseOsvRecord, rangeBranches } from '../../cli/parse/osv.ts';
import { orderFor } from '../../lib/versions/ecosystems.ts';
import { MemoryStageSink } from '../../cli/stage/writer.ts';

const DIR = fileURLToPath(new URL('../fixtures/ghsa/', import.meta.url));
const noProgress = { tick() {}, setTotal() {}, stop() {} };

function parseFixture(name: string) {
  const file = join(DIR, name);
  return parseOsvRecord(JSON.parse(readFileSync(file, 'utf8')), file);
}

describe('OSV / GHSA records', () => {
  it('keeps every affected[] entry of Spring4Shell and its fixed branches in record order', () => {
    const { advisory, packages, ranges } = parseFixture('GHSA-36p3-wjmg-h94x.json');
    expect(advisory).toMatchObject({
      advisory_id: 'GHSA-36p3-wjmg-h94x',
      database: 'ghsa',
      severity_band: 'CRITICAL',
      cvss_v3_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
      cvss_v3_score: 9.8,
      cvss_v4_vector: null,
      cve_ids: ['CVE-2022-22965'],
      cwe_ids: ['CWE-74', 'CWE-94'],
      github_reviewed: true,
      published: '2022-03-31T18:30:50.000Z',
      url: 'https://github.com/advisories/GHSA-36p3-wjmg-h94x',
    });
    expect(packages).toHaveLength(10);
    expect(packages.map((p) => p.affected_index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(packages[0]).toMatchObject({ ecosystem: 'Maven', package_name: 'org.springframework:spring-beans', range_count: 1 });
    expect(packages[1]!.package_name).toBe('org.springframework:spring-beans');
    expect(ranges.map((r) => [r.affected_index, r.introduced, r.fixed])).toEqual([
      [0, '0', '5.2.20.RELEASE'],
      [1, '5.3.0', '5.3.18'],
      [2, '0', '5.2.20.RELEASE'],
      [3, '5.3.0', '5.3.18'],
      [4, '0', '2.5.12'],
      [5, '2.6.0', '2.6.6'],
      [6, '0', '5.2.20.RELEASE'],
      [7, '5.3.0', '5.3.18'],
      [8, '0', '2.5.12'],
      [9, '2.6.0', '2.6.6'],
    ]);
    expect(ranges.every((r) => r.range_type === 'ECOSYSTEM' && r.last_affected === null && r.file.endsWith('GHSA-36p3-wjmg-h94x.json'))).toBe(true);
  });

  it('reads a last_affected branch (no fix) for both packages', () => {
    const { advisory, ranges } = parseFixture('GHSA-p8p7-x288-28g6.json');
    expect(advisory.severity_band).toBe('MODERATE');
    expect(ranges.map((r) => [r.introduced, r.fixed, r.last_affected])).toEqual([
      ['0', null, '2.88.2'],
      ['0', null, '2.88.11'],
    ]);
  });

  it('splits a Go SEMVER range with two introduced/fixed pairs into two branches', () => {
    const { advisory, packages, ranges } = parseFixture('osv-GO-2023-2102.json');
    expect(advisory).toMatchObject({
      database: 'go',
      cve_ids: ['CVE-2023-44487', 'CVE-2023-39325'],
      aliases: ['CVE-2023-44487', 'CVE-2023-39325', 'GHSA-4374-p667-p6c8'],
      // 0001-01-01 placeholders are "unknown", not year 1.
      published: null,
      modified: null,
      url: 'https://pkg.go.dev/vuln/GO-2023-2102',
    });
    expect(packages.map((p) => p.package_name)).toEqual(['stdlib', 'golang.org/x/net']);
    expect(ranges.map((r) => [r.affected_index, r.range_index, r.branch_index, r.range_type, r.introduced, r.fixed])).toEqual([
      [0, 0, 0, 'SEMVER', '0', '1.20.10'],
      [0, 0, 1, 'SEMVER', '1.21.0-0', '1.21.3'],
      [1, 0, 0, 'SEMVER', '0', '0.17.0'],
    ]);
  });

  it('keeps a withdrawn Ubuntu record with its withdrawal time, open range and versions', () => {
    const { advisory, packages, ranges } = parseFixture('osv-ubuntu-UBUNTU-CVE-2020-36325-withdrawn.json');
    expect(advisory).toMatchObject({
      advisory_id: 'UBUNTU-CVE-2020-36325',
      database: 'ubuntu',
      withdrawn: '2025-06-23T15:53:49.000Z',
      cve_ids: ['CVE-2020-36325'],
      cvss_v3_score: 7.5,
      summary: null,
    });
    expect(packages[0]).toMatchObject({ ecosystem: 'Ubuntu:Pro:14.04:LTS', package_name: 'jansson', range_count: 1 });
    expect(packages[0]!.versions).toHaveLength(6);
    expect(ranges).toEqual([expect.objectContaining({ introduced: '0', fixed: null, last_affected: null, limit: null })]);
  });

  it('takes a USN record’s CVE from upstream (its aliases are empty)', () => {
    const { advisory, packages } = parseFixture('osv-ubuntu-USN-5614-1.json');
    expect(advisory).toMatchObject({ database: 'usn', aliases: [], cve_ids: ['CVE-2021-3782'] });
    expect(packages[0]!.purl).toBe('pkg:deb/ubuntu/wayland@1.16.0-1ubuntu1.1~18.04.4?arch=source&distro=bionic');
  });

  it('reads both CVSS v3 and v4 vectors and scores them', () => {
    const { advisory } = parseFixture('GHSA-2326-hx7g-3m9r.json');
    expect(advisory).toMatchObject({
      cvss_v3_score: 5.9,
      cvss_v4_vector: 'CVSS:4.0/AV:N/AC:H/AT:N/PR:N/UI:N/VC:N/VI:H/VA:N/SC:N/SI:N/SA:N',
      cvss_v4_score: 8.2,
      // CVE-2023-48795 is only mentioned in the details: not this record's CVE.
      cve_ids: ['CVE-2024-41909'],
    });
  });

  it('scores a v4 vector by its base metrics alone (CVSS-B), whatever threat metric it carries', () => {
    const file = join(DIR, 'GHSA-2326-hx7g-3m9r.json');
    const record = JSON.parse(readFileSync(file, 'utf8'));
    const v4 = record.severity.find((s: { type: string }) => s.type === 'CVSS_V4');
    v4.score += '/E:U';
    const { advisory } = parseOsvRecord(record, file);
    // 8.2 is the base score GitHub shows; with E:U counted (CVSS-BT) the library gives less.
    expect(advisory).toMatchObject({ cvss_v4_vector: v4.score, cvss_v4_score: 8.2 });
  });

  it('reads an unreviewed record with no summary and no affected packages', () => {
    const { advisory, packages, ranges } = parseFixture('GHSA-235v-2948-prr3.json');
    expect(advisory).toMatchObject({ summary: null, github_reviewed: false, cwe_ids: ['CWE-79'] });
    expect(advisory.details).toContain('victim’s browser');
    expect(packages).toEqual([]);
    expect(ranges).toEqual([]);
  });

  it('keeps versions[] and the synthetic fix of an exact-version malware record, with no CVSS', () => {
    const { advisory, packages } = parseFixture('GHSA-pjwm-rvh2-c87w.json');
    expect(advisory.cvss_v3_vector).toBeNull();
    expect(advisory.cvss_v3_score).toBeNull();
    expect(packages.some((p) => p.versions.length > 0)).toBe(true);
  });
});

describe('range branches', () => {
  const ev = (kind: 'introduced' | 'fixed' | 'last_affected' | 'limit', value: string) => ({ kind, value });

  it('leaves a branch open when another introduced comes first, and carries limit on every branch', () => {
    expect(rangeBranches([ev('introduced', '1.0'), ev('introduced', '2.0'), ev('fixed', '2.5'), ev('limit', '3.0')])).toEqual([
      { introduced: '1.0', fixed: null, last_affected: null, limit: '3.0' },
      { introduced: '2.0', fixed: '2.5', last_affected: null, limit: '3.0' },
    ]);
  });

  it('walks events in record order, not sorted order', () => {
    const branches = rangeBranches([ev('introduced', '2.0'), ev('fixed', '2.1'), ev('introduced', '1.0'), ev('fixed', '1.1')]);
    expect(branches.map((b) => b.introduced)).toEqual(['2.0', '1.0']);
  });

  describe('with a version order: the events walked sorted, as the schema evaluates them', () => {
    const pep440 = orderFor('PyPI', 'ECOSYSTEM');
    const branch = (introduced: string | null, fixed: string | null, limit: string | null = null, last_affected: string | null = null) => ({ introduced, fixed, last_affected, limit });

    it('pairs events listed out of order by version', () => {
      expect(rangeBranches([ev('introduced', '2.0'), ev('fixed', '2.1'), ev('introduced', '1.0'), ev('fixed', '1.1')], pep440)).toEqual([branch('1.0', '1.1'), branch('2.0', '2.1')]);
      expect(rangeBranches([ev('fixed', '2.0'), ev('introduced', '1.0')], pep440)).toEqual([branch('1.0', '2.0')]);
      expect(rangeBranches([ev('last_affected', '1.9'), ev('introduced', '0')], pep440)).toEqual([branch('0', null, null, '1.9')]);
    });

    it('reads a second introduced inside an open branch, and a close with nothing open, as changing nothing', () => {
      // The schema's walk: 2.7 is past the fix of 2.5, so not affected (record order left 1.0 open-ended).
      expect(rangeBranches([ev('introduced', '1.0'), ev('introduced', '2.0'), ev('fixed', '2.5')], pep440)).toEqual([branch('1.0', '2.5')]);
      // 1.5 is after the first fix and before no new introduced: not affected.
      expect(rangeBranches([ev('introduced', '1.0'), ev('fixed', '1.2'), ev('fixed', '2.0')], pep440)).toEqual([branch('1.0', '1.2')]);
    });

    it('keeps closing events as branches when the range has no introduced at all', () => {
      expect(rangeBranches([ev('fixed', '1.2')], pep440)).toEqual([branch(null, '1.2')]);
    });

    it('takes the greatest of several limits (a version below any limit is inside)', () => {
      expect(rangeBranches([ev('introduced', '0'), ev('limit', '2.0'), ev('limit', '10.0'), ev('limit', '3.0')], pep440)).toEqual([branch('0', null, '10.0')]);
      expect(rangeBranches([ev('introduced', '0'), ev('limit', '2.0'), ev('limit', '*')], pep440)).toEqual([branch('0', null, '*')]);
    });

    it('walks a range in record order when a bound is no version of its order', () => {
      expect(rangeBranches([ev('introduced', 'not a version'), ev('introduced', '2.0'), ev('fixed', '2.5')], pep440)).toEqual([branch('not a version', null), branch('2.0', '2.5')]);
    });

    it('sorts the events of a parsed record by its ecosystem order', () => {
      const record = {
        id: 'PYSEC-0000-0001',
        modified: '2024-01-01T00:00:00Z',
        affected: [{ package: { ecosystem: 'PyPI', name: 'demo' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '1.10' }, { fixed: '1.10.3' }, { introduced: '0' }, { fixed: '1.9.2' }] }] }],
      };
      const { ranges } = parseOsvRecord(record, 'demo.json');
      expect(ranges.map((r) => [r.branch_index, r.introduced, r.fixed])).toEqual([
        [0, '0', '1.9.2'],
        [1, '1.10', '1.10.3'],
      ]);
    });
  });

  it('keeps a closing event with no open branch instead of dropping it', () => {
    expect(rangeBranches([ev('fixed', '1.2')])).toEqual([{ introduced: null, fixed: '1.2', last_affected: null, limit: null }]);
  });

  it('reads GIT ranges with repo, a package-less GIT entry, and an entry without ranges', () => {
    const record = {
      id: 'CVE-2024-0001',
      modified: '2024-05-01T00:00:00Z',
      affected: [
        {
          ranges: [
            {
              type: 'GIT',
              repo: 'https://github.com/example/lib',
              events: [{ introduced: 'aaaa' }, { fixed: 'bbbb' }, { limit: 'cccc' }],
            },
          ],
        },
        { package: { ecosystem: 'PyPI', name: 'lib' }, versions: ['1.0'] },
      ],
      references: [{ type: 'WEB', url: 'https://example.com/a' }],
    };
    const { advisory, packages, ranges } = parseOsvRecord(record, 'mem.json');
    expect(advisory).toMatchObject({ database: 'cve', cve_ids: ['CVE-2024-0001'], url: 'https://example.com/a' });
    expect(packages.map((p) => [p.ecosystem, p.package_name, p.range_count])).toEqual([
      ['GIT', 'https://github.com/example/lib', 1],
      ['PyPI', 'lib', 0],
    ]);
    expect(ranges).toEqual([
      expect.objectContaining({ range_type: 'GIT', repo: 'https://github.com/example/lib', introduced: 'aaaa', fixed: 'bbbb', limit: 'cccc' }),
    ]);
  });

  it('takes CVEs from upstream and distro-CVE related links, but not from plain related CVEs', () => {
    const { advisory } = parseOsvRecord(
      { id: 'DSA-1-1', upstream: ['CVE-2024-1111'], related: ['CVE-2024-2222', 'DEBIAN-CVE-2024-3333'] },
      'mem.json',
    );
    expect(advisory.cve_ids).toEqual(['CVE-2024-1111', 'CVE-2024-3333']);
  });
});

describe('malformed OSV input', () => {
  it('rejects an event with two keys, naming the file and the record', () => {
    const record = {
      id: 'GHSA-xxxx-yyyy-zzzz',
      affected: [{ package: { ecosystem: 'npm', name: 'x' }, ranges: [{ type: 'SEMVER', events: [{ introduced: '1.0', fixed: '1.2' }] }] }],
    };
    expect(() => parseOsvRecord(record, 'advisories/bad.json')).toThrow(RawFormatError);
    expect(() => parseOsvRecord(record, 'advisories/bad.json')).toThrow(
      /advisories\/bad\.json: record GHSA-xxxx-yyyy-zzzz: affected\[0\]\.ranges\[0\]\.events\[0\] must have exactly one key.*introduced, fixed/,
    );
  });

  it('rejects an empty event and an unknown event kind', () => {
    const withEvents = (events: unknown[]) => ({
      id: 'GO-2024-0001',
      affected: [{ package: { ecosystem: 'Go', name: 'x' }, ranges: [{ type: 'SEMVER', events }] }],
    });
    expect(() => parseOsvRecord(withEvents([{}]), 'f.json')).toThrow(/record GO-2024-0001: .*found none/);
    expect(() => parseOsvRecord(withEvents([{ patched: '1.0' }]), 'f.json')).toThrow(/unknown event "patched"/);
  });

  it('rejects a date its month lacks (it was published as the next month\'s), keeping Go\'s 0001 placeholder as unknown', () => {
    const file = join(DIR, 'GHSA-36p3-wjmg-h94x.json');
    const record = JSON.parse(readFileSync(file, 'utf8'));
    expect(() => parseOsvRecord({ ...record, published: '2024-02-30T00:00:00Z' }, file)).toThrow(
      /GHSA-36p3-wjmg-h94x\.json: record GHSA-36p3-wjmg-h94x: unreadable published \("2024-02-30T00:00:00Z"\): day 30 does not exist in 2024-02/,
    );
    expect(parseOsvRecord({ ...record, published: '0001-01-01T00:00:00Z' }, file).advisory.published).toBeNull();
  });

  it('drops a CVSS_V3 score that is no vector (it was published as is): the advisory keeps its band', () => {
    const file = join(DIR, 'GHSA-36p3-wjmg-h94x.json');
    const record = JSON.parse(readFileSync(file, 'utf8'));
    const { advisory } = parseOsvRecord({ ...record, severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:Z/<script>' }] }, file);
    expect(advisory.cvss_v3_vector).toBeNull();
    expect(advisory.cvss_v3_score).toBeNull();
    expect(advisory.severity_band).toBe(parseOsvRecord(record, file).advisory.severity_band);
  });

  it('rejects a record without an id, naming the file', () => {
    expect(() => parseOsvRecord({ summary: 'x' }, 'advisories/noid.json')).toThrow(/advisories\/noid\.json: OSV record has no "id"/);
  });
});

describe('osvParser.stage', () => {
  it('stages every fixture record', async () => {
    const sink = new MemoryStageSink();
    const result = await osvParser.stage(DIR, sink, noProgress);
    expect(result).toEqual({ files: 12, records: 12 });
    expect(sink.rows.osv_advisory).toHaveLength(12);
    expect(sink.rows.osv_package.filter((p) => p.advisory_id === 'GHSA-36p3-wjmg-h94x')).toHaveLength(10);
    expect(new Set(sink.rows.osv_advisory.map((a) => a.database))).toEqual(new Set(['ghsa', 'go', 'ubuntu', 'usn']));
  });

  it('reports malformed JSON with the file name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'osv-'));
    try {
      writeFileSync(join(dir, 'GHSA-bad.json'), '{"id": "GHSA-bad",');
      await expect(osvParser.stage(dir, new MemoryStageSink(), noProgress)).rejects.toThrow(/GHSA-bad\.json: malformed JSON/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
