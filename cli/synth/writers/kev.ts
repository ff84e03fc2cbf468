/**
 * The CISA KEV catalog (`known_exploited_vulnerabilities.json`) with the real field names,
 * newest `dateAdded` first, 4-space indent and PHP-escaped slashes as CISA publishes it.
 */
import { join } from 'node:path';
import { cveDetail } from '../detail.ts';
import { escapeSlashes, isoDate } from '../format.ts';
import { type OutputStats, writeWhole } from '../output.ts';
import { type CorpusPlan, FLAG } from '../plan.ts';
import { CORPUS_NOW } from '../scale.ts';

export interface KevVulnerability {
  cveID: string;
  vendorProject: string;
  product: string;
  vulnerabilityName: string;
  dateAdded: string;
  shortDescription: string;
  requiredAction: string;
  dueDate: string;
  knownRansomwareCampaignUse: string;
  notes: string;
  cwes: string[];
}

export function kevVulnerabilities(plan: CorpusPlan): KevVulnerability[] {
  const rows: KevVulnerability[] = [];
  for (let i = 0; i < plan.n; i++) {
    if (!plan.has(i, FLAG.KEV)) continue;
    const d = cveDetail(plan, i);
    const kev = d.kev!;
    const notes = [d.references[0]?.url, `https://nvd.nist.gov/vuln/detail/${d.id}`].filter(Boolean).join(' ; ');
    rows.push({
      cveID: d.id,
      vendorProject: d.product.vendorName,
      product: d.product.productName,
      vulnerabilityName: kev.vulnerabilityName,
      dateAdded: isoDate(kev.dateAdded),
      shortDescription: kev.shortDescription,
      requiredAction: kev.requiredAction,
      dueDate: isoDate(kev.dueDate),
      knownRansomwareCampaignUse: kev.ransomware,
      notes,
      // KEV lists NVD's weakness when it has one; `cwes` may be empty.
      cwes: d.nvdWeakness?.startsWith('CWE-') || d.cnaCwe ? [`CWE-${d.cwe}`] : [],
    });
  }
  // Newest additions first; same day: higher CVE id first.
  rows.sort((a, b) => (a.dateAdded !== b.dateAdded ? (a.dateAdded < b.dateAdded ? 1 : -1) : a.cveID < b.cveID ? 1 : -1));
  return rows;
}

export async function writeKev(plan: CorpusPlan, dir: string): Promise<OutputStats> {
  const vulnerabilities = kevVulnerabilities(plan);
  const latest = vulnerabilities[0]?.dateAdded ?? isoDate(CORPUS_NOW);
  const catalog = {
    title: 'CISA Catalog of Known Exploited Vulnerabilities',
    catalogVersion: latest.replace(/-/g, '.'),
    dateReleased: `${latest}T17:04:19.9796Z`,
    count: vulnerabilities.length,
    vulnerabilities,
  };
  const stats = await writeWhole(join(dir, 'known_exploited_vulnerabilities.json'), escapeSlashes(JSON.stringify(catalog, null, 4)));
  return { entries: vulnerabilities.length, bytes: stats.bytes };
}
