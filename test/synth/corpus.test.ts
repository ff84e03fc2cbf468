/**
 * End to end: `runSynth` at a small scale, read back through the raw reader the build uses.
 * Checks determinism, the shares the scorer's rules depend on, the formats, and that every
 * source links to CVEs that exist.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SynthReport, runSynth, synthesize } from '../../cli/commands/synth.ts';
import { listFiles, readDocuments } from '../../cli/raw/documents.ts';

process.env.VULNINTEL_QUIET = '1';

const N = 2000;
const root = await mkdtemp(join(tmpdir(), 'synth-corpus-'));
const rawA = join(root, 'a');

/** Parsed upstream JSON: the tests walk it freely. */
type Json = Record<string, any>;

async function docs(dir: string, endings = ['.json']): Promise<Array<{ path: string; json: Json }>> {
  const out = [];
  for await (const d of readDocuments(dir, { endings })) out.push({ path: d.path, json: JSON.parse(d.text) as Json });
  return out;
}

async function digests(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const file of await listFiles(dir)) out.set(file.slice(dir.length), createHash('sha256').update(await readFile(file)).digest('hex'));
  return out;
}

let nvd: Json[] = [];
let nvdPages: Json[] = [];
let cve5 = new Map<string, Json>();
let ids = new Set<string>();
let report: SynthReport;

beforeAll(async () => {
  report = await synthesize({ cves: N, raw: rawA, seed: 'a' });
  nvdPages = (await docs(join(rawA, 'nvd'))).map((d) => d.json);
  nvd = nvdPages.flatMap((p) => p.vulnerabilities.map((v: Json) => v.cve));
  ids = new Set(nvd.map((c) => c.id));
  cve5 = new Map((await docs(join(rawA, 'cvelist'))).map((d) => [d.json.cveMetadata.cveId, d.json]));
});

afterAll(() => rm(root, { recursive: true, force: true }));

describe('determinism', () => {
  it('writes byte-identical files for the same N and seed, different ones for another seed', async () => {
    const rawB = join(root, 'b');
    const rawC = join(root, 'c');
    await runSynth({ cves: N, raw: rawB, seed: 'a' });
    await runSynth({ cves: N, raw: rawC, seed: 'b' });
    const [a, b, c] = await Promise.all([digests(rawA), digests(rawB), digests(rawC)]);
    expect(a.size).toBeGreaterThan(15);
    expect([...b]).toEqual([...a]);
    expect(c.get('/cvelist/cves.zip')).not.toBe(a.get('/cvelist/cves.zip'));
    expect(c.get('/nvd/page-000000.json')).not.toBe(a.get('/nvd/page-000000.json'));
  });
});

describe('report', () => {
  it('counts what each source received, with its size on disk', () => {
    expect(report.sources.nvd?.entries).toBe(N);
    expect(report.sources.cvelist?.entries).toBe(N);
    for (const s of Object.values(report.sources)) expect(s.diskBytes).toBeGreaterThan(0);
    // Zipped sources take less room than their content.
    expect(report.sources.cvelist!.diskBytes).toBeLessThan(report.sources.cvelist!.bytes);
  });
});

describe('NVD pages', () => {
  it('carry the API 2.0 envelope with consistent paging', () => {
    expect(nvdPages.length).toBe(1);
    let start = 0;
    for (const page of nvdPages) {
      expect(Object.keys(page)).toEqual(['resultsPerPage', 'startIndex', 'totalResults', 'format', 'version', 'timestamp', 'vulnerabilities']);
      expect(page.format).toBe('NVD_CVE');
      expect(page.version).toBe('2.0');
      expect(page.totalResults).toBe(N);
      expect(page.startIndex).toBe(start);
      expect(page.resultsPerPage).toBe(page.vulnerabilities.length);
      start += page.resultsPerPage;
    }
    expect(ids.size).toBe(N);
  });

  it('hold the shares the scoring rules need', () => {
    const share = (test: (c: Json) => boolean) => nvd.filter(test).length / N;
    const metricKeys = (c: Json) => Object.keys(c.metrics).filter((k) => k.startsWith('cvssMetric'));
    const rejected = share((c) => c.vulnStatus === 'Rejected');
    const v2only = share((c) => metricKeys(c).join() === 'cvssMetricV2');
    const noMetrics = share((c) => c.vulnStatus !== 'Rejected' && metricKeys(c).length === 0);
    const v4only = share((c) => metricKeys(c).join() === 'cvssMetricV40');
    expect(rejected).toBeGreaterThan(0.03);
    expect(rejected).toBeLessThan(0.07);
    expect(v2only).toBeGreaterThan(0.17);
    expect(v2only).toBeLessThan(0.25);
    // No NVD metric: no-signal, vendor-severity-only and GHSA-only CVEs.
    expect(noMetrics).toBeGreaterThan(0.03);
    expect(noMetrics).toBeLessThan(0.08);
    expect(v4only).toBeGreaterThan(0.005);
    expect(share((c) => 'cvssMetricV30' in c.metrics)).toBeGreaterThan(0.01);
    expect(nvd.some((c) => c.metrics.ssvcV203)).toBe(true);
    expect(share((c) => typeof c.cisaExploitAdd === 'string')).toBeGreaterThan(0.002);
  });

  it('marks roles as the real records do: NVD Primary, CNA under its sourceIdentifier, CISA ADP', () => {
    const cisaAdp = '134c704f-9b21-4f2e-91b3-4a467353bcc0';
    let both = 0;
    let adp = 0;
    for (const c of nvd) {
      const metrics: Json[] = Object.entries(c.metrics).filter(([k]) => k.startsWith('cvssMetric')).flatMap(([, v]) => v as Json[]);
      for (const m of metrics) {
        expect(['nvd@nist.gov', c.sourceIdentifier, cisaAdp]).toContain(m.source);
        if (m.source === 'nvd@nist.gov') expect(m.type).toBe('Primary');
        if (m.source === cisaAdp) expect(m.type).toBe('Secondary');
      }
      const sources = new Set(metrics.map((m) => m.source));
      if (sources.has('nvd@nist.gov') && sources.has(c.sourceIdentifier)) both++;
      if (sources.has(cisaAdp)) adp++;
    }
    expect(both).toBeGreaterThan(N * 0.2);
    expect(adp).toBeGreaterThan(0);
    const rejected = nvd.find((c) => c.vulnStatus === 'Rejected')!;
    expect(rejected.descriptions[0].value.startsWith('** REJECT **')).toBe(true);
    expect(rejected.metrics).toEqual({});
    expect(rejected.references).toEqual([]);
  });
});

describe('CVE List V5', () => {
  it('has one record per CVE, REJECTED where NVD says Rejected', () => {
    expect(cve5.size).toBe(N);
    for (const c of nvd) {
      const rec = cve5.get(c.id)!;
      expect(rec.dataType).toBe('CVE_RECORD');
      expect(rec.cveMetadata.state).toBe(c.vulnStatus === 'Rejected' ? 'REJECTED' : 'PUBLISHED');
      if (rec.cveMetadata.state === 'REJECTED') expect(rec.containers.cna.rejectedReasons.length).toBe(1);
      else expect(rec.containers.cna.providerMetadata.dateUpdated).toBeTruthy();
    }
  });

  it('stores records under cves/<year>/<N>xxx/', async () => {
    const paths: string[] = [];
    for await (const d of readDocuments(join(rawA, 'cvelist'), { endings: ['.json'] })) paths.push(d.path.split('!')[1]!);
    expect(paths).toContain('cves/1999/0xxx/CVE-1999-0001.json');
    for (const p of paths) expect(p).toMatch(/^cves\/\d{4}\/\d+xxx\/CVE-\d{4}-\d{4,}\.json$/);
  });

  it('has CNA/NVD disagreements with the CNA metric both fresher and older than NVD', () => {
    let fresher = 0;
    let older = 0;
    for (const c of nvd) {
      const v31 = c.metrics.cvssMetricV31 ?? [];
      const nvdScore = v31.find((m: Json) => m.source === 'nvd@nist.gov')?.cvssData.baseScore;
      const cnaScore = v31.find((m: Json) => m.source === c.sourceIdentifier)?.cvssData.baseScore;
      if (nvdScore === undefined || cnaScore === undefined || nvdScore === cnaScore) continue;
      const cnaUpdated = Date.parse(cve5.get(c.id)!.containers.cna.providerMetadata.dateUpdated);
      if (cnaUpdated > Date.parse(`${c.lastModified}Z`)) fresher++;
      else older++;
    }
    expect(fresher).toBeGreaterThan(10);
    expect(older).toBeGreaterThan(10);
  });

  it('carries CISA ADP SSVC, capitalised in early 2024 as the real data is, and the KEV entry', () => {
    const ssvc = [...cve5.values()].flatMap((r) =>
      (r.containers.adp ?? []).flatMap((a: Json) => (a.metrics ?? []).filter((m: Json) => m.other?.type === 'ssvc').map((m: Json) => m.other.content)),
    );
    expect(ssvc.length).toBeGreaterThan(50);
    const values = new Set(ssvc.map((c) => c.options[0].Exploitation));
    expect(values.has('none') || values.has('poc')).toBe(true);
    expect([...values].some((v) => /^[A-Z]/.test(v))).toBe(true);
    const kevInAdp = [...cve5.values()].filter((r) => (r.containers.adp ?? []).some((a: Json) => (a.metrics ?? []).some((m: Json) => m.other?.type === 'kev')));
    expect(kevInAdp.length).toBeGreaterThan(0);
  });
});

describe('KEV, EPSS', () => {
  it('writes the KEV catalog with the real field names, linked to NVD', async () => {
    const kev = JSON.parse(await readFile(join(rawA, 'kev', 'known_exploited_vulnerabilities.json'), 'utf8')) as Json;
    expect(kev.count).toBe(kev.vulnerabilities.length);
    expect(kev.count).toBeGreaterThanOrEqual(8);
    for (const v of kev.vulnerabilities) {
      for (const f of ['cveID', 'vendorProject', 'product', 'vulnerabilityName', 'dateAdded', 'shortDescription', 'requiredAction', 'dueDate']) expect(typeof v[f]).toBe('string');
      expect(v.cveID).toMatch(/^CVE-\d{4}-\d{4,19}$/);
      expect(ids.has(v.cveID)).toBe(true);
      expect(nvd.find((c) => c.id === v.cveID)!.cisaExploitAdd).toBe(v.dateAdded);
    }
  });

  it('writes EPSS with the model line, the header, and ~98 % of non-rejected CVEs', async () => {
    const text = gunzipSync(await readFile(join(rawA, 'epss', 'epss_scores-current.csv.gz'))).toString('utf8');
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^#model_version:[^,]+,score_date:\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(lines[1]).toBe('cve,epss,percentile');
    const rows = lines.slice(2).map((l) => l.split(','));
    const live = nvd.filter((c) => c.vulnStatus !== 'Rejected').length;
    expect(rows.length / live).toBeGreaterThan(0.95);
    expect(rows.length / live).toBeLessThan(1);
    const scores = rows.map((r) => Number(r[1]));
    expect(rows.every((r) => ids.has(r[0]!) && /^\d(\.\d{1,5})?$/.test(r[1]!) && /^\d(\.\d{1,5})?$/.test(r[2]!))).toBe(true);
    expect(scores.filter((s) => s < 0.01).length / scores.length).toBeGreaterThan(0.6);
    expect(scores.filter((s) => s >= 0.1).length).toBeGreaterThan(0);
  });
});

describe('advisories', () => {
  it('writes GHSA records as OSV, most aliased to a CVE, ~10 % without one', async () => {
    const records = (await docs(join(rawA, 'ghsa'))).map((d) => d.json);
    expect(records.length).toBeGreaterThan(100);
    let unaliased = 0;
    let repeatedPackages = 0;
    for (const r of records) {
      expect(r.id).toMatch(/^GHSA-[2-9cfghjmpqrvwx]{4}-[2-9cfghjmpqrvwx]{4}-[2-9cfghjmpqrvwx]{4}$/);
      expect(['1.2.0', '1.3.0', '1.4.0']).toContain(r.schema_version);
      expect(['LOW', 'MODERATE', 'HIGH', 'CRITICAL']).toContain(r.database_specific.severity);
      if (r.aliases.length === 0) unaliased++;
      for (const a of r.aliases) expect(ids.has(a)).toBe(true);
      for (const s of r.severity) expect(s.score).toMatch(s.type === 'CVSS_V4' ? /^CVSS:4\.0\// : /^CVSS:3\.[01]\//);
      const names = r.affected.map((a: Json) => `${a.package.ecosystem}/${a.package.name}`);
      if (new Set(names).size < names.length) repeatedPackages++;
    }
    expect(unaliased / records.length).toBeGreaterThan(0.05);
    expect(unaliased / records.length).toBeLessThan(0.15);
    expect(repeatedPackages).toBeGreaterThan(0);
  });

  it('writes CSAF 2.0 zips per vendor, named by the CSAF rule, some without a CVE yet', async () => {
    const vendors = (await readdir(join(rawA, 'csaf'))).sort();
    expect(vendors).toEqual(['cisa', 'cisco', 'redhat', 'siemens', 'suse']);
    let total = 0;
    let withoutCve = 0;
    for (const vendor of vendors) {
      for (const { path, json } of await docs(join(rawA, 'csaf', vendor))) {
        total++;
        const doc = json.document;
        expect(doc.csaf_version).toBe('2.0');
        expect(typeof doc.title).toBe('string');
        expect(['vendor', 'coordinator']).toContain(doc.publisher.category);
        expect(doc.tracking.status).toBe('final');
        const entry = path.split('!')[1]!;
        expect(entry).toBe(`${doc.tracking.initial_release_date.slice(0, 4)}/${doc.tracking.id.toLowerCase().replace(/[^+\-a-z0-9]+/g, '_')}.json`);
        const cves = (json.vulnerabilities ?? []).map((v: Json) => v.cve).filter(Boolean);
        if (cves.length === 0) withoutCve++;
        for (const cve of cves) expect(ids.has(cve)).toBe(true);
        if (vendor === 'redhat' && json.vulnerabilities) {
          expect(doc.notes[0].text).toContain(`Red Hat Product Security has rated this update as having a security impact of ${doc.aggregate_severity.text}`);
        }
        if (vendor === 'cisco') expect(doc.aggregate_severity).toBeUndefined();
      }
    }
    expect(withoutCve / total).toBeGreaterThan(0.1);
    expect(withoutCve / total).toBeLessThan(0.2);
  });

  it('covers CVEs without any CVSS through a vendor severity band', async () => {
    const ghsaCves = new Set((await docs(join(rawA, 'ghsa'))).flatMap((d) => d.json.aliases as string[]));
    const noScore = new Set(
      nvd
        .filter((c) => c.vulnStatus !== 'Rejected' && Object.keys(c.metrics).every((k) => !k.startsWith('cvssMetric')))
        .filter((c) => !(cve5.get(c.id)!.containers.cna.metrics ?? []).length && !ghsaCves.has(c.id))
        .map((c) => c.id),
    );
    const banded = new Set<string>();
    for (const vendor of ['redhat', 'suse']) {
      for (const { json } of await docs(join(rawA, 'csaf', vendor))) {
        for (const v of json.vulnerabilities ?? []) if (noScore.has(v.cve) && v.threats?.some((t: Json) => t.category === 'impact')) banded.add(v.cve);
      }
    }
    for (const { json } of await docs(join(rawA, 'msrc'))) {
      for (const v of json.Vulnerability) if (noScore.has(v.CVE) && v.Threats.some((t: Json) => t.Type === 3)) banded.add(v.CVE);
    }
    expect(banded.size).toBeGreaterThan(5);
  });

  it('writes MSRC CVRF months with severity and exploited threats for Microsoft CVEs', async () => {
    const months = await docs(join(rawA, 'msrc'));
    expect(months.length).toBeGreaterThan(10);
    for (const { path, json } of months) {
      expect(path).toMatch(/\/\d{4}-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\.json$/);
      expect(json.DocumentTracking.Identification.ID.Value).toBe(path.slice(-13, -5).replace(/^\//, ''));
      for (const v of json.Vulnerability) {
        expect(ids.has(v.CVE)).toBe(true);
        expect(['Critical', 'Important', 'Moderate', 'Low']).toContain(v.Threats.find((t: Json) => t.Type === 3).Description.Value);
        expect(v.Threats.find((t: Json) => t.Type === 1).Description.Value).toMatch(/^Publicly Disclosed:(Yes|No);Exploited:(Yes|No);/);
      }
    }
  });
});

describe('exploits and CWE', () => {
  it('writes exploit records in each source format, naming existing CVEs', async () => {
    const csv = await readFile(join(rawA, 'exploitdb', 'files_exploits.csv'), 'utf8');
    const [header, ...rows] = csv.trimEnd().split('\n');
    expect(header).toBe('id,file,description,date_published,author,type,platform,port,date_added,date_updated,verified,codes,tags,aliases,screenshot_url,application_url,source_url');
    const codes = rows.flatMap((r) => r.match(/CVE-\d{4}-\d{4,}/g) ?? []);
    expect(codes.length).toBeGreaterThan(10);
    for (const c of codes) expect(ids.has(c)).toBe(true);
    expect(rows.some((r) => !/CVE-/.test(r))).toBe(true);

    const msf = JSON.parse(await readFile(join(rawA, 'metasploit', 'modules_metadata_base.json'), 'utf8')) as Json;
    for (const [key, m] of Object.entries(msf)) {
      expect(key).toBe(`${m.type}_${m.ref_name}`);
      for (const r of m.references.filter((x: string) => x.startsWith('CVE-'))) expect(ids.has(r)).toBe(true);
    }

    const nuclei = (await readFile(join(rawA, 'nuclei', 'cves.json'), 'utf8')).trimEnd().split('\n').map((l) => JSON.parse(l) as Json);
    expect(nuclei.length).toBeGreaterThan(0);
    for (const t of nuclei) {
      expect(ids.has(t.ID)).toBe(true);
      expect(typeof t.Info.Classification.CVSSScore).toBe('string');
    }

    const pocs = await docs(join(rawA, 'poc-in-github'));
    expect(pocs.length).toBeGreaterThan(10);
    for (const { path, json } of pocs) {
      const id = path.match(/(CVE-\d{4}-\d+)\.json$/)![1]!;
      expect(ids.has(id)).toBe(true);
      expect(Array.isArray(json)).toBe(true);
      expect(json[0].html_url).toMatch(/^https:\/\/github\.com\//);
    }
    const rawPoc = await readFile(join(rawA, 'poc-in-github', 'poc-in-github.zip'));
    expect(rawPoc.length).toBeGreaterThan(0);
  });

  it('catalogues every CWE the other sources name', async () => {
    const xml = await readFile(join(rawA, 'cwe', 'cwec_v4.19.xml'), 'utf8');
    expect(xml).toContain('xmlns="http://cwe.mitre.org/cwe-7"');
    const catalogued = new Set([...xml.matchAll(/<(?:Weakness|Category|View) ID="(\d+)"/g)].map((m) => `CWE-${m[1]}`));
    const used = new Set<string>();
    for (const c of nvd) for (const w of c.weaknesses ?? []) for (const d of w.description) if (d.value.startsWith('CWE-')) used.add(d.value);
    for (const r of (await docs(join(rawA, 'ghsa'))).map((d) => d.json)) for (const w of r.database_specific.cwe_ids) used.add(w);
    expect(used.size).toBeGreaterThan(20);
    for (const id of used) expect(catalogued.has(id)).toBe(true);
  });
});
