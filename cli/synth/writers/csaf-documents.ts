/**
 * CSAF 2.0 documents in each vendor's own style (see the real samples in
 * shared/real-samples/csaf): Red Hat with `aggregate_severity` in its Critical/Important/
 * Moderate/Low taxonomy, the "Red Hat Product Security has rated this update as having a
 * security impact of …" sentence, `threats[impact]`, relationships and CPE 2.2/purl helpers;
 * SUSE with its lower-case ratings; Cisco with scores and Cisco Bug IDs but no aggregate
 * severity; Siemens with scores; CISA as a coordinator with scores and CWE.
 */
import { cpe22 } from '../cpe.ts';
import { type Band, type VectorInfo, csafCvssV3, pickVector } from '../cvss.ts';
import { cweName } from '../cwes.ts';
import type { CveDetail } from '../detail.ts';
import { isoSeconds, microsZ, offsetTime } from '../format.ts';
import { FLAG } from '../plan.ts';
import type { Product } from '../products.ts';
import type { Rng } from '../random.ts';
import type { CsafVendor } from '../scale.ts';
import { titleCase } from '../text.ts';
import { VULN_CLASSES, type VulnClass } from '../vocab.ts';

/** One vulnerability of an advisory: a CVE's facts, or an issue that has no CVE yet. */
export interface AdvisoryVuln {
  cve: string | null;
  product: Product;
  cls: VulnClass;
  band: Band;
  vector: VectorInfo | null;
  description: string;
  published: number;
  fixedIn: string | null;
  exploited: boolean;
}

export function vulnFromCve(d: CveDetail): AdvisoryVuln {
  const v3 = [...d.cnaMetrics, ...d.nvdMetrics].find((m) => m.version === '3.1' || m.version === '3.0');
  const v2 = d.nvdMetrics.find((m) => m.version === '2.0');
  return {
    cve: d.id,
    product: d.product,
    cls: d.cls,
    band: d.vendorBand,
    vector: v3 ?? v2 ?? null,
    description: d.description,
    published: d.published,
    fixedIn: d.fixedIn,
    exploited: (d.flags & FLAG.KEV) !== 0,
  };
}

/** An issue the vendor publishes before a CVE exists. */
export function vulnWithoutCve(product: Product, released: number, rng: Rng): AdvisoryVuln {
  const cls = rng.weighted(VULN_CLASSES.map((c) => [c, c.weight] as const));
  const band = rng.weighted<Band>([[0, 8], [1, 45], [2, 37], [3, 10]]);
  const vector = pickVector('3.1', band, rng);
  return {
    cve: null,
    product,
    cls,
    band,
    vector,
    description: `A ${cls.phrase} vulnerability in ${product.productName} could allow an attacker to ${cls.achieves}.`,
    published: released,
    fixedIn: `${rng.int(1, 20)}.${rng.int(0, 9)}.${rng.int(1, 30)}`,
    exploited: false,
  };
}

const RED_HAT_BANDS = ['Low', 'Moderate', 'Important', 'Critical'] as const;
const SUSE_BANDS = ['low', 'moderate', 'important', 'critical'] as const;

interface Profile {
  publisher: Record<string, string>;
  engine: { name: string; version: string };
  tlpUrl: string;
  time: (ms: number) => string;
  semverVersion: boolean;
}

const PROFILES: Record<CsafVendor, Profile> = {
  redhat: {
    publisher: {
      category: 'vendor',
      contact_details: 'https://access.redhat.com/security/team/contact/',
      issuing_authority: 'Red Hat Product Security is responsible for vulnerability handling across all Red Hat products and services.',
      name: 'Red Hat Product Security',
      namespace: 'https://www.redhat.com',
    },
    engine: { name: 'Red Hat SDEngine', version: '4.7.4' },
    tlpUrl: 'https://www.first.org/tlp/',
    time: offsetTime,
    semverVersion: false,
  },
  suse: {
    publisher: { category: 'vendor', contact_details: 'https://www.suse.com/support/security/contact/', name: 'SUSE Product Security Team', namespace: 'https://www.suse.com/' },
    engine: { name: 'cvrf2csaf', version: '1.0' },
    tlpUrl: 'https://www.first.org/tlp/',
    time: isoSeconds,
    semverVersion: false,
  },
  cisco: {
    publisher: { category: 'vendor', contact_details: 'Emergency Support:\n+1 877 228 7302 (toll-free within North America)\n+1 408 525 6532 (International direct-dial)\nNon-emergency Support:\nEmail: psirt@cisco.com', issuing_authority: 'Cisco PSIRT', name: 'Cisco', namespace: 'https://www.cisco.com' },
    engine: { name: 'TVCE', version: '1.0' },
    tlpUrl: 'https://www.first.org/tlp/',
    time: offsetTime,
    semverVersion: false,
  },
  siemens: {
    publisher: { category: 'vendor', contact_details: 'productcert@siemens.com', name: 'Siemens ProductCERT', namespace: 'https://www.siemens.com' },
    engine: { name: 'Siemens ProductCERT CSAF Generator', version: '1' },
    tlpUrl: 'https://www.first.org/tlp/',
    time: isoSeconds,
    semverVersion: false,
  },
  cisa: {
    publisher: { category: 'coordinator', contact_details: 'central@cisa.dhs.gov', name: 'CISA', namespace: 'https://www.cisa.gov/' },
    engine: { name: 'CISA CSAF Generator', version: '1.0.0' },
    tlpUrl: 'https://us-cert.cisa.gov/tlp/',
    time: microsZ,
    semverVersion: true,
  },
};

interface ProductNode {
  /** Product ids the vulnerabilities refer to (per affected product). */
  ids: Map<Product, string[]>;
  tree: Record<string, unknown>;
}

function packageName(p: Product): string {
  return p.product.replace(/_/g, '-');
}

/** Red Hat / SUSE: OS streams × source packages, joined by relationships. */
function distroTree(vendor: 'redhat' | 'suse', products: Product[], vulns: AdvisoryVuln[], rng: Rng): ProductNode {
  const major = rng.int(7, 9);
  const streams = vendor === 'redhat'
    ? [['AppStream', `Red Hat Enterprise Linux AppStream (v. ${major})`, `cpe:/a:redhat:enterprise_linux:${major}::appstream`], ['BaseOS', `Red Hat Enterprise Linux BaseOS (v. ${major})`, `cpe:/o:redhat:enterprise_linux:${major}::baseos`]]
    : [['SUSE Linux Enterprise Server 15 SP5', 'SUSE Linux Enterprise Server 15 SP5', 'cpe:/o:suse:sles:15:sp5'], ['openSUSE Leap 15.5', 'openSUSE Leap 15.5', 'cpe:/o:opensuse:leap:15.5']];
  const streamIds = streams.map(([id]) => (vendor === 'redhat' ? `${id}-${major}.4.0.Z.MAIN` : id!));
  const versions: Array<Record<string, unknown>> = [];
  const relationships: Array<Record<string, unknown>> = [];
  const ids = new Map<Product, string[]>();
  for (const p of products) {
    const fixed = vulns.find((v) => v.product === p)?.fixedIn ?? '1.0.1';
    const nevra = vendor === 'redhat' ? `${packageName(p)}-0:${fixed}-1.el${major}_4.src` : `${packageName(p)}-${fixed}-150500.3.1`;
    versions.push({
      category: 'product_version',
      name: nevra,
      product: {
        name: nevra,
        product_id: nevra,
        product_identification_helper: { purl: `pkg:rpm/${vendor}/${packageName(p)}@${fixed}-1?arch=src` },
      },
    });
    const full: string[] = [];
    streamIds.forEach((sid, k) => {
      const id = `${sid}:${nevra}`;
      full.push(id);
      relationships.push({
        category: 'default_component_of',
        full_product_name: { name: `${nevra} as a component of ${streams[k]![1]}`, product_id: id },
        product_reference: nevra,
        relates_to_product_reference: sid,
      });
    });
    ids.set(p, full);
  }
  const family = {
    category: 'product_family',
    name: vendor === 'redhat' ? 'Red Hat Enterprise Linux' : 'SUSE Linux Enterprise',
    branches: streams.map(([, name, cpe], k) => ({
      category: 'product_name',
      name,
      product: { name, product_id: streamIds[k], product_identification_helper: { cpe } },
    })),
  };
  return {
    ids,
    tree: {
      branches: [{ category: 'vendor', name: vendor === 'redhat' ? 'Red Hat' : 'SUSE', branches: [family, { category: 'architecture', name: 'src', branches: versions }] }],
      relationships,
    },
  };
}

/** Cisco / Siemens / CISA: vendor → product → affected version (CISA: a `<=` range name). */
function vendorTree(vendor: CsafVendor, products: Product[], vulns: AdvisoryVuln[]): ProductNode {
  const ids = new Map<Product, string[]>();
  const byVendor = new Map<string, Array<Record<string, unknown>>>();
  let n = 0;
  for (const p of products) {
    const fixed = vulns.find((v) => v.product === p)?.fixedIn ?? '1.0.1';
    const id = `CSAFPID-${String(++n).padStart(4, '0')}`;
    ids.set(p, [id]);
    const versionName = vendor === 'cisa' ? `<${fixed}` : `vers:all/<${fixed}`;
    const branch = {
      category: 'product_name',
      name: p.productName,
      branches: [
        {
          category: 'product_version_range',
          name: versionName,
          product: { name: `${p.vendorName} ${p.productName} ${versionName}`, product_id: id, product_identification_helper: { cpe: cpe22(p) } },
        },
      ],
    };
    const list = byVendor.get(p.vendorName) ?? [];
    list.push(branch);
    byVendor.set(p.vendorName, list);
  }
  return { ids, tree: { branches: [...byVendor].map(([name, branches]) => ({ category: 'vendor', name, branches })) } };
}

function maxBand(vulns: AdvisoryVuln[]): Band {
  return vulns.reduce<Band>((m, v) => (v.band > m ? v.band : m), 0);
}

export interface AdvisoryInput {
  vendor: CsafVendor;
  trackingId: string;
  fileName: string;
  released: number;
  vulns: AdvisoryVuln[];
  /** Red Hat: an informational advisory without vulnerabilities. */
  informational: boolean;
}

export function csafDocument(a: AdvisoryInput, rng: Rng): Record<string, unknown> {
  const profile = PROFILES[a.vendor];
  const time = profile.time;
  const products = [...new Set(a.vulns.map((v) => v.product))];
  const main = products[0];
  const mainName = main ? (a.vendor === 'redhat' || a.vendor === 'suse' ? packageName(main) : main.productName) : 'product';
  const band = maxBand(a.vulns);
  const node = a.vendor === 'redhat' || a.vendor === 'suse' ? distroTree(a.vendor, products, a.vulns, rng) : vendorTree(a.vendor, products, a.vulns);
  const cveList = a.vulns.filter((v) => v.cve).map((v) => v.cve!);
  const revised = rng.chance(0.3) ? Math.min(a.released + rng.int(1, 200) * 86_400_000, Date.UTC(2026, 8, 30)) : a.released;

  let title: string;
  const notes: Array<Record<string, string>> = [];
  const severity: Record<string, string> = {};
  switch (a.vendor) {
    case 'redhat':
      title = a.informational ? `Red Hat Bug Fix Advisory: ${mainName} bug fix and enhancement update` : `Red Hat Security Advisory: ${mainName} security update`;
      if (!a.informational) {
        severity.namespace = 'https://access.redhat.com/security/updates/classification/';
        severity.text = RED_HAT_BANDS[band];
        notes.push({
          category: 'summary',
          text: `An update for ${mainName} is now available for Red Hat Enterprise Linux.\n\nRed Hat Product Security has rated this update as having a security impact of ${RED_HAT_BANDS[band]}. A Common Vulnerability Scoring System (CVSS) base score, which gives a detailed severity rating, is available for each vulnerability from the CVE link(s) in the References section.`,
          title: 'Topic',
        });
        notes.push({ category: 'general', text: `Security Fix(es):\n\n${a.vulns.map((v) => `* ${mainName}: ${v.cls.phrase} (${v.cve ?? 'no CVE'})`).join('\n')}`, title: 'Details' });
      } else notes.push({ category: 'summary', text: `Updated ${mainName} packages that fix several bugs are now available.`, title: 'Topic' });
      notes.push({ category: 'legal_disclaimer', text: 'This content is licensed under the Creative Commons Attribution 4.0 International License (https://creativecommons.org/licenses/by/4.0/).', title: 'Terms of Use' });
      break;
    case 'suse':
      title = `Security update for ${mainName}`;
      severity.namespace = 'https://www.suse.com/support/security/rating/';
      severity.text = SUSE_BANDS[band];
      notes.push({ category: 'summary', text: title, title: 'Title of the patch' });
      notes.push({ category: 'description', text: `This update for ${mainName} fixes the following issues:\n\n${a.vulns.map((v) => `- ${v.cve ?? 'bsc#'}: ${v.cls.phrase}`).join('\n')}`, title: 'Description of the patch' });
      notes.push({ category: 'legal_disclaimer', text: 'CSAF 2.0 data is provided by SUSE under the Creative Commons License 4.0 with Attribution (CC-BY-4.0).', title: 'Terms of use' });
      break;
    case 'cisco':
      title = `Cisco ${mainName} ${titleCase(a.vulns[0]?.cls.phrase ?? 'vulnerability')} Vulnerability`;
      notes.push({ category: 'summary', text: a.vulns[0]?.description ?? title, title: 'Summary' });
      notes.push({ category: 'general', text: 'Cisco has released software updates that address this vulnerability. There are no workarounds that address this vulnerability.', title: 'Details' });
      notes.push({ category: 'legal_disclaimer', text: 'THIS DOCUMENT IS PROVIDED ON AN "AS IS" BASIS AND DOES NOT IMPLY ANY KIND OF GUARANTEE OR WARRANTY.', title: 'Legal Disclaimer' });
      break;
    case 'siemens':
      title = `${a.trackingId}: ${titleCase(a.vulns[0]?.cls.phrase ?? 'multiple')} Vulnerabilities in ${mainName}`;
      notes.push({ category: 'summary', text: `${mainName} is affected by ${a.vulns.length} vulnerabilities. Siemens has released new versions and recommends to update to the latest versions.`, title: 'Summary' });
      notes.push({ category: 'legal_disclaimer', text: 'The use of Siemens Security Advisories is subject to the terms and conditions listed on: https://www.siemens.com/productcert/terms-of-use.', title: 'Terms of Use' });
      break;
    case 'cisa':
    default:
      title = `${main?.vendorName ?? 'Vendor'} ${mainName}`;
      notes.push({ category: 'legal_disclaimer', text: 'All information products included in https://us-cert.cisa.gov/ics are provided "as is" for informational purposes only.', title: 'Legal Notice' });
      notes.push({ category: 'summary', text: `Successful exploitation of these vulnerabilities could allow an attacker to ${a.vulns[0]?.cls.achieves ?? 'compromise the device'}.`, title: 'Risk evaluation' });
      notes.push({ category: 'other', text: 'Critical Manufacturing, Energy, Water and Wastewater Systems', title: 'Critical infrastructure sectors' });
      break;
  }

  const document: Record<string, unknown> = {};
  if (severity.text) document.aggregate_severity = severity;
  Object.assign(document, {
    category: a.informational ? 'csaf_informational_advisory' : 'csaf_security_advisory',
    csaf_version: '2.0',
    distribution: { text: a.vendor === 'cisa' ? 'Disclosure is not limited' : `Copyright \u00a9 ${profile.publisher.name}. All rights reserved.`, tlp: { label: 'WHITE', url: profile.tlpUrl } },
    lang: 'en',
    notes,
    publisher: profile.publisher,
    references: [
      { category: 'self', summary: a.trackingId, url: selfUrl(a) },
      ...cveList.slice(0, 3).map((cve) => ({ category: 'external', summary: cve, url: `https://www.cve.org/CVERecord?id=${cve}` })),
    ],
    title,
    tracking: {
      current_release_date: time(revised),
      generator: { date: time(revised), engine: profile.engine },
      id: a.trackingId,
      initial_release_date: time(a.released),
      revision_history: [
        { date: time(a.released), number: profile.semverVersion ? '1.0.0' : '1', summary: 'Initial version' },
        ...(revised !== a.released ? [{ date: time(revised), number: profile.semverVersion ? '1.1.0' : '2', summary: 'Updated version' }] : []),
      ],
      status: 'final',
      version: profile.semverVersion ? (revised !== a.released ? '1.1.0' : '1.0.0') : revised !== a.released ? '2' : '1',
    },
  });
  const doc: Record<string, unknown> = { document, product_tree: node.tree };
  if (!a.informational) doc.vulnerabilities = a.vulns.map((v, k) => vulnerability(a, v, k, node, rng));
  return doc;
}

function selfUrl(a: AdvisoryInput): string {
  const year = new Date(a.released).getUTCFullYear();
  switch (a.vendor) {
    case 'redhat': return `https://access.redhat.com/errata/${a.trackingId}`;
    case 'suse': return `https://www.suse.com/support/update/announcement/${year}/${a.fileName.replace(/\.json$/, '')}/`;
    case 'cisco': return `https://sec.cloudapps.cisco.com/security/center/content/CiscoSecurityAdvisory/${a.trackingId}`;
    case 'siemens': return `https://cert-portal.siemens.com/productcert/csaf/${a.fileName}`;
    default: return `https://www.cisa.gov/news-events/ics-advisories/${a.trackingId.toLowerCase()}`;
  }
}

function vulnerability(a: AdvisoryInput, v: AdvisoryVuln, k: number, node: ProductNode, rng: Rng): Record<string, unknown> {
  const productIds = node.ids.get(v.product) ?? [];
  const out: Record<string, unknown> = {};
  if (v.cve) out.cve = v.cve;
  out.cwe = { id: `CWE-${v.cls.cwe}`, name: cweName(v.cls.cwe) };
  const ids: Array<{ system_name: string; text: string }> = [];
  if (a.vendor === 'redhat') ids.push({ system_name: 'Red Hat Bugzilla ID', text: String(2_000_000 + rng.int(0, 400_000)) });
  if (a.vendor === 'cisco') ids.push({ system_name: 'Cisco Bug ID', text: `CSC${rng.chars('abcdefghijklmnopqrstuvwxyz', 2)}${rng.int(10_000, 99_999)}` });
  if (a.vendor === 'suse') ids.push({ system_name: 'SUSE Bugzilla', text: String(1_200_000 + rng.int(0, 99_999)) });
  if (ids.length) out.ids = ids;
  out.notes = [
    { category: a.vendor === 'cisa' || a.vendor === 'siemens' ? 'summary' : 'description', text: v.description, title: 'Vulnerability description' },
  ];
  out.product_status = a.vendor === 'redhat' || a.vendor === 'suse' ? { fixed: productIds } : { known_affected: productIds };
  out.references = [
    ...(v.cve ? [{ category: 'external', summary: v.cve, url: `https://nvd.nist.gov/vuln/detail/${v.cve}` }] : []),
  ];
  out.release_date = PROFILES[a.vendor].time(v.published);
  out.remediations = [
    {
      category: 'vendor_fix',
      details: v.fixedIn ? `Update to version ${v.fixedIn} or later.` : 'Apply the update described in this advisory.',
      product_ids: productIds,
      url: selfUrl(a),
    },
  ];
  // Red Hat and SUSE rate every CVE in their own band; scores only where a vector exists.
  if (v.vector && v.vector.version !== '4.0' && v.vector.version !== '2.0') out.scores = [{ cvss_v3: csafCvssV3(v.vector), products: productIds }];
  else if (v.vector?.version === '2.0') out.scores = [{ cvss_v2: { baseScore: v.vector.score, vectorString: v.vector.vector, version: '2.0' }, products: productIds }];
  const threats: Array<Record<string, unknown>> = [];
  if (a.vendor === 'redhat') threats.push({ category: 'impact', details: RED_HAT_BANDS[v.band] });
  if (a.vendor === 'suse') threats.push({ category: 'impact', details: SUSE_BANDS[v.band] });
  if (v.exploited && (a.vendor === 'cisco' || a.vendor === 'cisa') && rng.chance(0.5)) {
    threats.push({ category: 'exploit_status', details: 'The vendor is aware of active exploitation of this vulnerability in the wild.', product_ids: productIds });
  }
  if (threats.length) out.threats = threats;
  out.title = v.cve ? `${v.product.productName}: ${v.cls.phrase}` : `${titleCase(v.cls.phrase)} in ${v.product.productName} (issue ${k + 1})`;
  return out;
}
