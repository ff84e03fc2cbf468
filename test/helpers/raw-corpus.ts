/**
 * Writes small raw corpora in the real upstream formats (NVD API 2.0 pages, CVE JSON 5
 * records, KEV catalog, EPSS CSV, OSV records, CSAF documents) for tests that need precise
 * inputs: each case is one CVE with exactly the signals it needs.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const NVD = 'nvd@nist.gov';

export interface NvdMetric {
  version: '2.0' | '3.0' | '3.1' | '4.0';
  source: string;
  type?: 'Primary' | 'Secondary';
  vector: string;
  score: number;
  severity?: string;
  /** v2 only: NVD's `userInteractionRequired` flag on the metric object. */
  userInteractionRequired?: boolean;
}

export interface NvdCase {
  id: string;
  published?: string;
  lastModified?: string;
  vulnStatus?: string;
  sourceIdentifier?: string;
  description?: string;
  metrics?: NvdMetric[];
  cwes?: string[];
  cpes?: string[];
  kevDateAdded?: string;
  /** NVD's `cveTags` (the CNA's tags as NVD copied them). */
  cveTags?: string[];
  ssvc?: { exploitation: string; automatable: string; technicalImpact: string };
}

function severityOf(score: number): string {
  return score >= 9 ? 'CRITICAL' : score >= 7 ? 'HIGH' : score >= 4 ? 'MEDIUM' : score > 0 ? 'LOW' : 'NONE';
}

export function nvdRecord(c: NvdCase): Record<string, unknown> {
  const metrics: Record<string, unknown[]> = {};
  for (const m of c.metrics ?? []) {
    const key = m.version === '4.0' ? 'cvssMetricV40' : m.version === '3.1' ? 'cvssMetricV31' : m.version === '3.0' ? 'cvssMetricV30' : 'cvssMetricV2';
    const entry: Record<string, unknown> =
      m.version === '2.0'
        ? { source: m.source, type: m.type ?? 'Primary', cvssData: { version: '2.0', vectorString: m.vector, baseScore: m.score }, baseSeverity: m.severity ?? (m.score >= 7 ? 'HIGH' : m.score >= 4 ? 'MEDIUM' : 'LOW'), ...(m.userInteractionRequired !== undefined ? { userInteractionRequired: m.userInteractionRequired } : {}) }
        : { source: m.source, type: m.type ?? 'Primary', cvssData: { version: m.version, vectorString: m.vector, baseScore: m.score, baseSeverity: m.severity ?? severityOf(m.score) } };
    (metrics[key] ??= []).push(entry);
  }
  if (c.ssvc) {
    metrics.ssvcV203 = [{
      source: '134c704f-9b21-4f2e-91b3-4a467353bcc0',
      ssvcData: { timestamp: '2025-01-01T00:00:00Z', id: c.id, options: [{ exploitation: c.ssvc.exploitation }, { automatable: c.ssvc.automatable }, { technicalImpact: c.ssvc.technicalImpact }], role: 'CISA Coordinator', version: '2.0.3' },
    }];
  }
  const rec: Record<string, unknown> = {
    id: c.id,
    sourceIdentifier: c.sourceIdentifier ?? 'cna@example.com',
    published: c.published ?? '2024-03-01T10:00:00.000',
    lastModified: c.lastModified ?? '2024-06-01T10:00:00.000',
    vulnStatus: c.vulnStatus ?? 'Analyzed',
    cveTags: c.cveTags?.length ? [{ sourceIdentifier: c.sourceIdentifier ?? 'cna@example.com', tags: c.cveTags }] : [],
    descriptions: [{ lang: 'en', value: c.description ?? `Test vulnerability ${c.id}.` }],
    metrics,
    weaknesses: (c.cwes ?? []).map((cwe) => ({ source: NVD, type: 'Primary', description: [{ lang: 'en', value: cwe }] })),
    references: [{ url: `https://example.com/advisory/${c.id}`, source: 'cna@example.com' }],
  };
  if (c.cpes?.length) {
    rec.configurations = [{ nodes: [{ operator: 'OR', negate: false, cpeMatch: c.cpes.map((criteria, i) => ({ vulnerable: true, criteria, matchCriteriaId: `00000000-0000-0000-0000-00000000000${i}` })) }] }];
  }
  if (c.kevDateAdded) {
    rec.cisaExploitAdd = c.kevDateAdded;
    rec.cisaActionDue = c.kevDateAdded;
    rec.cisaRequiredAction = 'Apply mitigations per vendor instructions.';
    rec.cisaVulnerabilityName = `Test ${c.id}`;
  }
  return rec;
}

export function nvdPage(records: Record<string, unknown>[], startIndex = 0): Record<string, unknown> {
  return {
    resultsPerPage: records.length,
    startIndex,
    totalResults: records.length,
    format: 'NVD_CVE',
    version: '2.0',
    timestamp: '2026-11-01T00:00:00.000',
    vulnerabilities: records.map((cve) => ({ cve })),
  };
}

export interface Cve5Case {
  id: string;
  state?: 'PUBLISHED' | 'REJECTED';
  cnaShortName?: string;
  cnaDateUpdated: string;
  dateUpdated?: string;
  cnaMetrics?: Array<{ version: '3.0' | '3.1' | '4.0'; vector: string; score: number; severity?: string }>;
  adpSsvc?: { Exploitation: string; Automatable: string; 'Technical Impact': string };
  /** The CNA's `affected[]` vendor and product (default examplecorp / widget), and a package it may name. */
  affected?: { vendor: string; product: string; packageName?: string; collectionURL?: string };
  /** The CNA container's `tags`. */
  cnaTags?: string[];
}

export function cve5Record(c: Cve5Case): Record<string, unknown> {
  const metricKey = { '3.0': 'cvssV3_0', '3.1': 'cvssV3_1', '4.0': 'cvssV4_0' } as const;
  const cna: Record<string, unknown> =
    c.state === 'REJECTED'
      ? { providerMetadata: { orgId: 'org', shortName: c.cnaShortName ?? 'example', dateUpdated: c.cnaDateUpdated }, rejectedReasons: [{ lang: 'en', value: 'Rejected for test.' }] }
      : {
          providerMetadata: { orgId: 'org', shortName: c.cnaShortName ?? 'example', dateUpdated: c.cnaDateUpdated },
          descriptions: [{ lang: 'en', value: `Test vulnerability ${c.id}.` }],
          affected: [{
            vendor: c.affected?.vendor ?? 'examplecorp', product: c.affected?.product ?? 'widget',
            ...(c.affected?.packageName ? { packageName: c.affected.packageName } : {}),
            ...(c.affected?.collectionURL ? { collectionURL: c.affected.collectionURL } : {}),
            versions: [{ version: '1.0', status: 'affected' }],
          }],
          references: [{ url: `https://example.com/cna/${c.id}` }],
          ...(c.cnaTags ? { tags: c.cnaTags } : {}),
          metrics: (c.cnaMetrics ?? []).map((m) => ({
            [metricKey[m.version]]: { version: m.version, vectorString: m.vector, baseScore: m.score, baseSeverity: m.severity ?? severityOf(m.score) },
          })),
        };
  const containers: Record<string, unknown> = { cna };
  if (c.adpSsvc) {
    containers.adp = [{
      providerMetadata: { orgId: '134c704f-9b21-4f2e-91b3-4a467353bcc0', shortName: 'CISA-ADP', dateUpdated: c.cnaDateUpdated },
      title: 'CISA ADP Vulnrichment',
      metrics: [{ other: { type: 'ssvc', content: { id: c.id, role: 'CISA Coordinator', version: '2.0.3', timestamp: c.cnaDateUpdated, options: [{ Exploitation: c.adpSsvc.Exploitation }, { Automatable: c.adpSsvc.Automatable }, { 'Technical Impact': c.adpSsvc['Technical Impact'] }] } } }],
    }];
  }
  return {
    dataType: 'CVE_RECORD',
    dataVersion: '5.1',
    cveMetadata: {
      cveId: c.id,
      assignerOrgId: 'org',
      assignerShortName: c.cnaShortName ?? 'example',
      state: c.state ?? 'PUBLISHED',
      dateReserved: '2024-01-01T00:00:00.000Z',
      datePublished: '2024-03-01T10:00:00.000Z',
      dateUpdated: c.dateUpdated ?? c.cnaDateUpdated,
    },
    containers,
  };
}

export interface KevCase { id: string; dateAdded: string; ransomware?: 'Known' | 'Unknown' }

export function kevCatalog(entries: KevCase[]): Record<string, unknown> {
  return {
    title: 'CISA Catalog of Known Exploited Vulnerabilities',
    catalogVersion: '2026.11.01',
    dateReleased: '2026-11-01T15:00:00.0000Z',
    count: entries.length,
    vulnerabilities: entries.map((e) => ({
      cveID: e.id, vendorProject: 'Example', product: 'Widget', vulnerabilityName: `Example ${e.id}`,
      dateAdded: e.dateAdded, shortDescription: 'Test.', requiredAction: 'Apply updates.', dueDate: e.dateAdded,
      knownRansomwareCampaignUse: e.ransomware ?? 'Unknown', notes: '', cwes: [],
    })),
  };
}

export function epssCsv(rows: Array<[string, number, number?]>): string {
  return ['#model_version:v2025.03.14,score_date:2026-11-01T00:00:00Z', 'cve,epss,percentile', ...rows.map(([id, e, p]) => `${id},${e},${p ?? 0.5}`)].join('\n') + '\n';
}

export interface GhsaCase {
  id: string;
  cve?: string;
  vector?: string;
  band?: string | null;
  withdrawn?: string;
  /** Other ids of the same vulnerability (another OSV record's id), beside `cve`. */
  aliases?: string[];
  /** The package it names (default `pkg-<id in lower case>`), fixed in 1.2.3. */
  packageName?: string;
  /** The package's ecosystem (default npm). */
  ecosystem?: string;
}

export function ghsaRecord(g: GhsaCase): Record<string, unknown> {
  return {
    schema_version: '1.4.0',
    id: g.id,
    modified: '2025-01-01T00:00:00Z',
    published: '2024-12-01T00:00:00Z',
    ...(g.withdrawn ? { withdrawn: g.withdrawn } : {}),
    aliases: [...(g.cve ? [g.cve] : []), ...(g.aliases ?? [])],
    summary: `Test advisory ${g.id}`,
    details: 'Details.',
    severity: g.vector ? [{ type: g.vector.startsWith('CVSS:4') ? 'CVSS_V4' : 'CVSS_V3', score: g.vector }] : [],
    affected: [{ package: { ecosystem: g.ecosystem ?? 'npm', name: g.packageName ?? `pkg-${g.id.toLowerCase()}` }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '1.2.3' }] }] }],
    references: [{ type: 'ADVISORY', url: `https://github.com/advisories/${g.id}` }],
    database_specific: { cwe_ids: [], severity: g.band === undefined ? 'MODERATE' : g.band, github_reviewed: true, github_reviewed_at: '2024-12-01T00:00:00Z', nvd_published_at: null },
  };
}

export interface CsafCase { trackingId: string; cve: string; severityText: string; namespace?: string }

/** A Red Hat-style CSAF advisory stating its severity only in prose and aggregate_severity. */
export function csafDocument(c: CsafCase): Record<string, unknown> {
  return {
    document: {
      aggregate_severity: { namespace: c.namespace ?? 'https://access.redhat.com/security/updates/classification/', text: c.severityText },
      category: 'csaf_security_advisory',
      csaf_version: '2.0',
      notes: [{ category: 'summary', text: `An update is available. Red Hat Product Security has rated this update as having a security impact of ${c.severityText}.`, title: 'Topic' }],
      publisher: { category: 'vendor', contact_details: 'https://access.redhat.com/security/team/contact/', name: 'Red Hat Product Security', namespace: 'https://www.redhat.com' },
      title: `Test advisory ${c.trackingId}`,
      tracking: { current_release_date: '2025-02-01T00:00:00+00:00', generator: { engine: { name: 'test', version: '1' } }, id: c.trackingId, initial_release_date: '2025-02-01T00:00:00+00:00', revision_history: [{ date: '2025-02-01T00:00:00+00:00', number: '1', summary: 'Initial' }], status: 'final', version: '1' },
    },
    product_tree: { branches: [{ category: 'vendor', name: 'Red Hat', branches: [{ category: 'product_name', name: 'Widget', product: { name: 'Widget 1', product_id: 'W1' } }] }] },
    vulnerabilities: [{ cve: c.cve, product_status: { known_affected: ['W1'] }, threats: [{ category: 'impact', details: c.severityText }] }],
  };
}

export interface Corpus {
  nvd?: NvdCase[];
  cve5?: Cve5Case[];
  kev?: KevCase[];
  epss?: Array<[string, number, number?]>;
  ghsa?: GhsaCase[];
  csaf?: Record<string, CsafCase[]>;
  buildJson?: Record<string, unknown>;
}

export async function writeCorpus(corpus: Corpus, dir?: string): Promise<string> {
  const raw = dir ?? (await mkdtemp(join(tmpdir(), 'vulnintel-raw-')));
  const put = async (rel: string, content: unknown) => {
    const path = join(raw, rel);
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
  };
  if (corpus.nvd) await put('nvd/page-000000.json', nvdPage(corpus.nvd.map(nvdRecord)));
  for (const c of corpus.cve5 ?? []) await put(`cvelist/${c.id}.json`, cve5Record(c));
  if (corpus.kev) await put('kev/known_exploited_vulnerabilities.json', kevCatalog(corpus.kev));
  if (corpus.epss) await put('epss/epss_scores-current.csv', epssCsv(corpus.epss));
  for (const g of corpus.ghsa ?? []) await put(`ghsa/${g.id}.json`, ghsaRecord(g));
  for (const [vendor, docs] of Object.entries(corpus.csaf ?? {})) {
    for (const d of docs) await put(`csaf/${vendor}/${d.trackingId.toLowerCase().replace(/[^+\-a-z0-9]+/g, '_')}.json`, csafDocument(d));
  }
  if (corpus.buildJson) await put('_build.json', corpus.buildJson);
  return raw;
}
