/** One CVE page's data: the API's record JSON, its enrichment, references and related CVEs. */
import { cveHistory, newestChangeBuild } from '../../queries/changes.ts';
import type { CveEnrichment } from '../../queries/enrichment.ts';
import { TableUnavailableError } from '../../queries/support.ts';
import type { CveReferences } from '../../queries/references.ts';
import type { RelatedCves } from '../../queries/related.ts';
import { parseCveId } from '../../http/params.ts';
import type { ServingSnapshot } from '../../snapshot/serving.ts';
import type { ChangeRow } from '../../../lib/changes/model.ts';
import type { ScoreFactors } from '../components/score-breakdown.tsx';
import { PageError } from '../page-response.ts';

/** The record as the API serves it (`/api/v1/public/cves/{id}`); only the fields the page reads. */
export interface CveRecord {
  cve_id: string;
  published: string | null;
  last_modified: string | null;
  status: string;
  state: string | null;
  vuln_status: string | null;
  assigner: string | null;
  title: string | null;
  description: string | null;
  cve_tags: string[];
  severity: string | null;
  cvss_v3_score: number;
  cvss_v3_vector: string | null;
  cvss_v3_version: string | null;
  cvss_v3_source: string | null;
  cvss_v4_score: number;
  cvss_v4_vector: string | null;
  cvss_v4_severity: string | null;
  cvss_v2_score: number;
  cvss_v2_severity: string | null;
  cvss_v2_vector: string | null;
  epss_score: number | null;
  epss_percentile: number | null;
  epss_date: string | null;
  kev: boolean;
  kev_added_date: string | null;
  kev_due_date: string | null;
  kev_known_ransomware_campaign_use: string | null;
  kev_required_action: string | null;
  svc_kev: boolean;
  exploit_poc_available: boolean;
  exploit_count: number;
  cwe_ids: string[];
  ghsa_ids: string[];
  service_score: number;
  score_assessed: boolean;
  score_unassessed_reason?: string | null;
  service_severity: string;
  service_risk: number;
  service_ssvc_decision: string | null;
  score_confidence: string | null;
  vendor_severity: string | null;
  vendor_severity_source: string | null;
  vendor_severity_evidence: string | null;
  score_factors: ScoreFactors;
}

export interface CvePageData {
  record: CveRecord;
  enrichment: CveEnrichment | null;
  references: CveReferences | null;
  related: RelatedCves | null;
  /** null: this snapshot holds no change history. */
  history: ChangeRow[] | null;
}

export function cveIdOrFail(raw: string): string {
  try {
    return parseCveId(raw);
  } catch (err) {
    throw new PageError(404, 'No such CVE', `"${raw}" is not a CVE identifier: ${(err as Error).message}.`);
  }
}

/** null when the snapshot has no change history to read. */
async function loadHistory(snapshot: ServingSnapshot, cveId: string): Promise<ChangeRow[] | null> {
  try {
    if ((await snapshot.memo('newest-change-build', () => newestChangeBuild(snapshot))) === null) return null;
    return await cveHistory(snapshot, cveId);
  } catch (err) {
    if (err instanceof TableUnavailableError) return null;
    throw err;
  }
}

export async function loadCve(snapshot: ServingSnapshot, rawId: string): Promise<CvePageData> {
  const cveId = cveIdOrFail(rawId);
  const doc = snapshot.records.docOf(cveId);
  if (doc === undefined) throw new PageError(404, 'No such CVE', `${cveId} is not in this snapshot (${snapshot.buildId}).`);
  const record = JSON.parse(snapshot.records.bytes(doc).toString('utf8')) as CveRecord;
  // The answers the build stored (the API's bytes).
  const enrichment = JSON.parse(snapshot.answers.forCve('enrichment', doc).toString('utf8')) as CveEnrichment;
  const references = JSON.parse(snapshot.answers.forCve('references', doc).toString('utf8')) as CveReferences;
  const related = JSON.parse(snapshot.answers.related(doc).toString('utf8')) as RelatedCves;
  const history = await loadHistory(snapshot, cveId);
  return { record, enrichment, references, related, history };
}
