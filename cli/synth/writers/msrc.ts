/**
 * Microsoft MSRC CVRF v3 JSON: one document per Patch Tuesday month (`msrc/2024-Jan.json`)
 * listing that month's Microsoft CVEs, with `Threats` Type 0 (impact), Type 3 (severity
 * Critical/Important/Moderate/Low) and Type 1 (`Publicly Disclosed:No;Exploited:Yes;…`), and
 * `CVSSScoreSets` where Microsoft published a vector.
 */
import { join } from 'node:path';
import { type CveDetail, cveDetail } from '../detail.ts';
import { cvrfTime, monthName, msrcMonthId } from '../format.ts';
import { type OutputStats, writeWhole } from '../output.ts';
import { type CorpusPlan, FLAG } from '../plan.ts';
import { IMPACT_TITLES } from '../vocab.ts';

const SEVERITY = ['Low', 'Moderate', 'Important', 'Critical'] as const;

/** Patch Tuesday: the second Tuesday of the month, 08:00 UTC. */
function patchTuesday(ms: number): number {
  const d = new Date(ms);
  const first = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1, 8);
  const dow = new Date(first).getUTCDay();
  return first + (((2 - dow + 7) % 7) + 7) * 86_400_000;
}

function productId(d: CveDetail): string {
  return String(10_000 + (d.product.product.length * 7919 + d.product.vendor.length * 104_729) % 20_000);
}

function vulnerability(d: CveDetail, ordinal: number) {
  const pid = productId(d);
  const exploited = (d.flags & FLAG.MSRC_EXPLOITED) !== 0;
  const impact = IMPACT_TITLES[d.cls.impact];
  const v3 = d.cnaMetrics.find((m) => m.version === '3.1' || m.version === '3.0');
  return {
    Title: { Value: `${d.product.productName} ${impact} Vulnerability` },
    Notes: [
      { Title: 'Description', Type: 2, Ordinal: '20', Value: `<p>${d.description}</p>` },
      { Title: d.product.productName, Type: 7, Ordinal: '10', Value: d.product.productName },
    ],
    DiscoveryDateSpecified: false,
    ReleaseDateSpecified: false,
    CVE: d.id,
    ProductStatuses: [{ ProductID: [pid], Type: 3 }],
    Threats: [
      { Description: { Value: impact }, ProductID: [pid], Type: 0, DateSpecified: false },
      { Description: { Value: SEVERITY[d.vendorBand] }, ProductID: [pid], Type: 3, DateSpecified: false },
      {
        Description: {
          Value: `Publicly Disclosed:No;Exploited:${exploited ? 'Yes' : 'No'};Latest Software Release:${exploited ? 'Exploitation Detected' : 'Exploitation Less Likely'};Older Software Release:${exploited ? 'Exploitation Detected' : 'Exploitation Less Likely'};DOS:N/A`,
        },
        Type: 1,
        DateSpecified: false,
      },
    ],
    CVSSScoreSets: v3 ? [{ BaseScore: v3.score, TemporalScore: Math.max(0.1, Math.round((v3.score - 0.7) * 10) / 10), Vector: `${v3.vector}/E:U/RL:O/RC:C`, ProductID: [pid] }] : [],
    Remediations: [
      {
        Description: { Value: String(5_000_000 + (d.index % 90_000)) },
        URL: `https://catalog.update.microsoft.com/v7/site/Search.aspx?q=KB${5_000_000 + (d.index % 90_000)}`,
        ProductID: [pid],
        Type: 2,
        DateSpecified: false,
        AffectedFiles: [],
        RestartRequired: { Value: 'Yes' },
        SubType: 'Security Update',
        FixedBuild: d.fixedIn ?? '10.0.0.1',
      },
    ],
    Acknowledgments: [],
    Ordinal: String(ordinal),
    RevisionHistory: [{ Number: '1.0', Date: cvrfTime(patchTuesday(d.published)), Description: { Value: '<p>Information published.</p>' } }],
  };
}

function document(month: string, details: CveDetail[]): Record<string, unknown> {
  const released = patchTuesday(details[0]!.published);
  const title = `${monthName(released)} ${new Date(released).getUTCFullYear()} Security Updates`;
  const products = new Map<string, string>();
  for (const d of details) products.set(productId(d), d.product.productName);
  const full = [...products].map(([ProductID, Value]) => ({ ProductID, Value }));
  return {
    DocumentTitle: { Value: title },
    DocumentType: { Value: 'Security Update' },
    DocumentPublisher: { ContactDetails: { Value: 'secure@microsoft.com' }, IssuingAuthority: { Value: 'The Microsoft Security Response Center (MSRC) identifies, monitors, resolves, and responds to security incidents and Microsoft software security vulnerabilities.' }, Type: 0 },
    DocumentTracking: {
      Identification: { ID: { Value: month }, Alias: { Value: month } },
      Status: 2,
      Version: '1.0',
      RevisionHistory: [{ Number: '1.0', Date: cvrfTime(released), Description: { Value: title } }],
      InitialReleaseDate: cvrfTime(released),
      CurrentReleaseDate: cvrfTime(released),
    },
    DocumentNotes: [{ Title: 'Release Notes', Audience: 'Public', Type: 1, Ordinal: '1', Value: `<p>The ${title} include fixes for ${details.length} vulnerabilities.</p>` }],
    ProductTree: { Branch: [{ Items: [{ Items: full, Type: 2, Name: 'Microsoft' }], Type: 0, Name: 'Microsoft' }], FullProductName: full },
    Vulnerability: details.map((d, k) => vulnerability(d, k)),
  };
}

export async function writeMsrc(plan: CorpusPlan, dir: string): Promise<OutputStats> {
  // CVE indices are in publication order, so each month's CVEs arrive together.
  const stats: OutputStats = { entries: 0, bytes: 0 };
  let month = '';
  let batch: CveDetail[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const s = await writeWhole(join(dir, `${month}.json`), JSON.stringify(document(month, batch)));
    stats.entries++;
    stats.bytes += s.bytes;
    batch = [];
  };
  for (let i = 0; i < plan.n; i++) {
    if (!plan.has(i, FLAG.MSRC)) continue;
    const m = msrcMonthId(plan.published[i]!);
    if (m !== month) {
      await flush();
      month = m;
    }
    batch.push(cveDetail(plan, i));
  }
  await flush();
  return stats;
}
