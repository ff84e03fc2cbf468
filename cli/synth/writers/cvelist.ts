/**
 * CVE List V5: one CVE JSON 5.1 record per CVE, as cvelistV5 stores it (4-space indent,
 * `cves/<year>/<N>xxx/CVE-….json`). The CNA container carries the CNA's own CVSS and
 * `providerMetadata.dateUpdated` (the freshness the scorer compares with NVD's
 * `lastModified`); the CISA ADP container carries SSVC (capitalised values in early 2024, as
 * real data has them) and the KEV entry; legacy records keep MITRE's conversion quirks.
 */
import { CISA_ADP, CVE_PROGRAM } from '../cnas.ts';
import { cpe23 } from '../cpe.ts';
import { cve5Metric } from '../cvss.ts';
import { cweName } from '../cwes.ts';
import type { CveDetail, SsvcDecision } from '../detail.ts';
import { isoDate, isoZ, legacyTime, microsZ } from '../format.ts';
import { KIND } from '../plan.ts';
import { rngFor } from '../random.ts';

const COLLECTION_URLS: Record<string, string> = {
  npm: 'https://registry.npmjs.org',
  PyPI: 'https://pypi.org',
  Maven: 'https://repo.maven.apache.org/maven2',
  Go: 'https://pkg.go.dev',
  Packagist: 'https://packagist.org',
  NuGet: 'https://www.nuget.org',
  RubyGems: 'https://rubygems.org',
  'crates.io': 'https://crates.io',
};

/** `cves/2024/1xxx/CVE-2024-1086.json`: the number without its last three digits, then `xxx`. */
export function cve5EntryPath(id: string): string {
  const [, year, num] = id.split('-') as [string, string, string];
  return `cves/${year}/${Math.floor(Number(num) / 1000)}xxx/${id}.json`;
}

/** CVE 5 `affected[]` (also NVD's new top-level `affectedData`). */
export function cve5Affected(d: CveDetail, legacy: boolean): Array<Record<string, unknown>> {
  if (legacy || (d.cna.key === 'mitre' && d.index % 2 === 0)) {
    return [{ product: 'n/a', vendor: 'n/a', versions: [{ status: 'affected', version: 'n/a' }] }];
  }
  return d.products.map((p) => {
    const versions = d.branches.map((b) => {
      const v: Record<string, unknown> = { status: 'affected', version: b.introduced };
      if (b.fixed) v.lessThan = b.fixed;
      else if (b.lastAffected) v.lessThanOrEqual = b.lastAffected;
      v.versionType = p.ecosystem ? 'semver' : p.versioning === 'kernel' ? 'semver' : 'custom';
      return v;
    });
    const entry: Record<string, unknown> = { defaultStatus: 'unaffected', product: p.productName, vendor: p.vendorName, versions };
    if (p.packageName && p.ecosystem) {
      entry.packageName = p.packageName;
      const url = COLLECTION_URLS[p.ecosystem];
      if (url) entry.collectionURL = url;
    }
    if (p.versioning === 'kernel') entry.repo = 'https://git.kernel.org/pub/scm/linux/kernel/git/stable/linux.git';
    return entry;
  });
}

function problemTypes(d: CveDetail) {
  if (!d.cnaCwe) return [{ descriptions: [{ description: 'n/a', lang: 'en', type: 'text' }] }];
  return [{ descriptions: [{ cweId: `CWE-${d.cwe}`, description: `CWE-${d.cwe} ${cweName(d.cwe)}`, lang: 'en', type: 'CWE' }] }];
}

const CAPITALISED: Record<string, string> = { none: 'None', poc: 'PoC', active: 'Active', yes: 'Yes', no: 'No', partial: 'Partial', total: 'Total' };
const SSVC_CAPITALISED_UNTIL = Date.UTC(2024, 5, 1);

function ssvcContent(id: string, s: SsvcDecision) {
  // CISA's first Vulnrichment entries (early 2024) capitalised the values.
  const v = (x: string) => (s.timestamp < SSVC_CAPITALISED_UNTIL ? CAPITALISED[x] ?? x : x);
  return {
    other: {
      type: 'ssvc',
      content: {
        id,
        role: 'CISA Coordinator',
        options: [{ Exploitation: v(s.exploitation) }, { Automatable: v(s.automatable) }, { 'Technical Impact': v(s.technicalImpact) }],
        version: '2.0.3',
        timestamp: microsZ(s.timestamp),
      },
    },
  };
}

function cisaAdpContainer(d: CveDetail) {
  const metrics: unknown[] = [];
  if (d.adpMetric) metrics.push(cve5Metric(d.adpMetric, false));
  if (d.ssvc) metrics.push(ssvcContent(d.id, d.ssvc));
  const kevUrl = `https://www.cisa.gov/known-exploited-vulnerabilities-catalog?field_cve=${d.id}`;
  if (d.kev) metrics.push({ other: { type: 'kev', content: { dateAdded: isoDate(d.kev.dateAdded), reference: kevUrl } } });
  const c: Record<string, unknown> = { metrics, title: 'CISA ADP Vulnrichment' };
  if (d.adpMetric) {
    c.affected = [{ cpes: [cpe23(d.product)], vendor: d.product.vendor, product: d.product.product, versions: [{ status: 'affected', version: '0', versionType: 'custom', lessThan: d.fixedIn ?? '*' }], defaultStatus: 'unknown' }];
    if (!d.cnaCwe) c.problemTypes = [{ descriptions: [{ lang: 'en', type: 'CWE', cweId: `CWE-${d.cwe}`, description: `CWE-${d.cwe} ${cweName(d.cwe)}` }] }];
  }
  c.providerMetadata = { orgId: CISA_ADP.orgId, shortName: CISA_ADP.shortName, dateUpdated: isoZ(d.adpUpdated) };
  if (d.kev) c.timeline = [{ time: `${isoDate(d.kev.dateAdded)}T00:00:00+00:00`, lang: 'en', value: `${d.id} added to CISA KEV` }];
  return c;
}

function cveProgramContainer(d: CveDetail) {
  return {
    providerMetadata: { orgId: CVE_PROGRAM.orgId, shortName: CVE_PROGRAM.shortName, dateUpdated: isoZ(d.cveProgramUpdated) },
    title: 'CVE Program Container',
    references: d.references.map((r) => ({ url: r.url, tags: [...(r.cve5Tags ?? []), 'x_transferred'] })),
  };
}

function rejectedRecord(d: CveDetail) {
  const rejected = d.rejection!;
  const cna: Record<string, unknown> = {
    providerMetadata: { orgId: d.cna.orgId, shortName: d.cna.shortName, dateUpdated: isoZ(d.cnaUpdated) },
    rejectedReasons: [{ lang: 'en', value: rejected.reason }],
  };
  if (rejected.replacedBy) cna.replacedBy = [rejected.replacedBy];
  return {
    dataType: 'CVE_RECORD',
    dataVersion: '5.1',
    cveMetadata: {
      cveId: d.id,
      assignerOrgId: d.cna.orgId,
      state: 'REJECTED',
      assignerShortName: d.cna.shortName,
      dateReserved: isoZ(d.reserved),
      datePublished: isoZ(d.published),
      dateUpdated: isoZ(d.cnaUpdated),
      dateRejected: isoZ(d.cnaUpdated),
    },
    containers: { cna },
  };
}

/** The CVE JSON 5.1 record of one CVE. */
export function cve5Record(d: CveDetail, root: number): Record<string, unknown> {
  if (d.kind === KIND.REJECTED) return rejectedRecord(d);
  const rng = rngFor(root, 'cve5', d.index);
  const time = d.legacy ? legacyTime : isoZ;
  const description: Record<string, unknown> = { lang: 'en', value: d.description };
  if (!d.legacy && rng.chance(0.2)) description.supportingMedia = [{ base64: false, type: 'text/html', value: `<p>${d.description}</p>` }];
  const cna: Record<string, unknown> = { affected: cve5Affected(d, d.legacy) };
  if (!d.legacy && rng.chance(0.4)) cna.datePublic = isoZ(d.published - rng.int(1, 72) * 3_600_000);
  cna.descriptions = [description];
  if (d.cnaMetrics.length) cna.metrics = d.cnaMetrics.map((m) => cve5Metric(m, d.cnaMinimal));
  cna.problemTypes = problemTypes(d);
  cna.providerMetadata = { orgId: d.cna.orgId, shortName: d.cna.shortName, dateUpdated: time(d.cnaUpdated) };
  cna.references = d.references.map((r) => (r.cve5Tags ? { url: r.url, tags: r.cve5Tags } : { url: r.url }));
  if (!d.legacy && rng.chance(0.3)) cna.source = { discovery: rng.pick(['UNKNOWN', 'EXTERNAL', 'INTERNAL']) };
  if (d.title) cna.title = d.title;
  if (!d.legacy && rng.chance(0.3)) cna.x_generator = { engine: 'Vulnogram 0.1.0-dev' };
  if (d.legacy && rng.chance(0.3)) {
    cna.x_legacyV4Record = {
      CVE_data_meta: { ASSIGNER: 'cve@mitre.org', ID: d.id, STATE: 'PUBLIC' },
      data_format: 'MITRE',
      data_type: 'CVE',
      data_version: '4.0',
      description: { description_data: [{ lang: 'eng', value: d.description }] },
    };
  }
  const adp: unknown[] = [];
  if (d.cveProgramUpdated) adp.push(cveProgramContainer(d));
  if (d.adpUpdated) adp.push(cisaAdpContainer(d));
  if (adp.length > 1 && rng.chance(0.5)) adp.reverse();
  const containers: Record<string, unknown> = adp.length ? { cna, adp } : { cna };
  const meta = {
    cveId: d.id,
    assignerOrgId: d.cna.orgId,
    state: 'PUBLISHED',
    assignerShortName: d.cna.shortName,
    dateReserved: time(d.reserved),
    datePublished: time(d.published),
    dateUpdated: isoZ(d.cveUpdated),
  };
  // Legacy conversions have their keys in alphabetical order (containers first).
  if (d.legacy) return { containers, cveMetadata: meta, dataType: 'CVE_RECORD', dataVersion: '5.1' };
  return { dataType: 'CVE_RECORD', dataVersion: '5.1', cveMetadata: meta, containers };
}
