/**
 * Which CVEs each CSAF advisory links, and when it was released. Each vendor's advisories
 * walk through its CVE pool (plan.ts decides the pools) in date order as overlapping windows:
 * a CVE appears in none, one or several advisories of a vendor (Red Hat ships the same fix
 * for several product streams), every vendor-severity-only CVE is covered (it has no other
 * signal), and ~15 % of advisories link no CVE yet. Exact advisory counts come from scale.ts.
 */
import { type CorpusPlan, DAY, FLAG, KIND } from '../plan.ts';
import { rngFor } from '../random.ts';
import { CORPUS_NOW, type CsafVendor } from '../scale.ts';

export interface AdvisoryPlan {
  vendor: CsafVendor;
  /** CVE indices (plan order); empty for an advisory that names no CVE. */
  cves: number[];
  released: number;
}

export const VENDOR_FLAGS: Record<CsafVendor, number> = {
  redhat: FLAG.REDHAT,
  suse: FLAG.SUSE,
  cisco: FLAG.CISCO,
  siemens: FLAG.SIEMENS,
  cisa: FLAG.CISA,
};

/** Mean number of CVEs per linked advisory. */
const MEAN_CVES: Record<CsafVendor, number> = { redhat: 2, suse: 1.8, cisco: 1.2, siemens: 2, cisa: 1.5 };
const MAX_CVES = 20;

export function layoutAdvisories(plan: CorpusPlan, vendor: CsafVendor): AdvisoryPlan[] {
  const rng = rngFor(plan.root, 'csaf-layout', vendor);
  const pool: number[] = [];
  for (let i = 0; i < plan.n; i++) if (plan.has(i, VENDOR_FLAGS[vendor])) pool.push(i);
  const total = plan.counts.csaf[vendor];
  const unlinked = pool.length === 0 ? total : Math.max(1, Math.round(total * 0.15));
  const linked = total - unlinked;
  const out: AdvisoryPlan[] = [];
  const covered = new Uint8Array(pool.length);
  const step = linked > 0 ? pool.length / linked : 0;
  for (let a = 0; a < linked; a++) {
    const start = Math.floor(a * step);
    const k = Math.min(MAX_CVES, rng.geometric(MEAN_CVES[vendor]));
    const cves: number[] = [];
    for (let q = start; q < Math.min(pool.length, start + k); q++) {
      cves.push(pool[q]!);
      covered[q] = 1;
    }
    out.push({ vendor, cves, released: 0 });
  }
  // Windows leave gaps; a vendor-severity-only CVE in a gap joins the nearest advisory.
  for (let q = 0; q < pool.length; q++) {
    if (!covered[q] && linked > 0 && plan.kind[pool[q]!] === KIND.VENDOR_ONLY) out[Math.min(linked - 1, Math.floor(q / step))]!.cves.push(pool[q]!);
  }
  for (const adv of out) {
    adv.cves.sort((x, y) => x - y);
    const newest = Math.max(...adv.cves.map((i) => plan.published[i]!));
    adv.released = Math.min(CORPUS_NOW - DAY, newest + rng.int(0, 30) * DAY + rng.int(0, 86_399) * 1000);
  }
  // Advisories without a CVE are recent: vendors publish before a CVE is assigned.
  for (let u = 0; u < unlinked; u++) {
    out.push({ vendor, cves: [], released: CORPUS_NOW - DAY - rng.int(0, 730) * DAY - rng.int(0, 86_399) * 1000 });
  }
  out.sort((x, y) => x.released - y.released);
  return out;
}

/** CSAF filename rule (§5.1): lower-case id, runs outside `[+\-a-z0-9]` → `_`, `.json`. */
export function csafFileName(trackingId: string): string {
  return `${trackingId.toLowerCase().replace(/[^+\-a-z0-9]+/g, '_')}.json`;
}
