/**
 * CSAF vendor advisories: one zip per vendor, `csaf/<vendor>/<vendor>-csaf.zip`, entries
 * `<year>/<file>.json` (year of the initial release, file name per the CSAF filename rule).
 * Tracking ids follow each vendor's scheme: RHSA-2024:6163, SUSE-SU-2024:1234-1,
 * cisco-sa-<slug>-<tag>, SSA-123456, ICSA-24-081-01.
 */
import { join } from 'node:path';
import type { Progress } from '../../../lib/log.ts';
import type { DeflatePool } from '../deflate-pool.ts';
import { cveDetail } from '../detail.ts';
import { type OutputStats, ZipStreamWriter } from '../output.ts';
import type { CorpusPlan } from '../plan.ts';
import type { Product } from '../products.ts';
import { type Rng, rngFor } from '../random.ts';
import { CSAF_VENDORS, type CsafVendor } from '../scale.ts';
import { type AdvisoryPlan, csafFileName, layoutAdvisories } from './csaf-layout.ts';
import { csafDocument, vulnFromCve, vulnWithoutCve } from './csaf-documents.ts';

const ALNUM = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

/** Hands out tracking ids in release order (numbers rise through each year). */
class TrackingIds {
  private year = 0;
  private counter = 0;
  private readonly used = new Set<string>();

  constructor(private readonly vendor: CsafVendor, private readonly rng: Rng) {}

  next(released: number, product: Product | undefined): string {
    const d = new Date(released);
    const year = d.getUTCFullYear();
    if (year !== this.year) {
      this.year = year;
      this.counter = this.rng.int(1, 60);
    }
    this.counter += this.rng.int(1, 4);
    for (;;) {
      const id = this.candidate(d, product);
      if (!this.used.has(id)) {
        this.used.add(id);
        return id;
      }
      this.counter++;
    }
  }

  private candidate(d: Date, product: Product | undefined): string {
    const year = d.getUTCFullYear();
    const n4 = String(this.counter).padStart(4, '0');
    switch (this.vendor) {
      case 'redhat': return `RHSA-${year}:${n4}`;
      case 'suse': return `SUSE-SU-${year}:${n4}-1`;
      case 'cisco': {
        const slug = (product?.product ?? 'ios').replace(/_software$/, '').replace(/[^a-z0-9]+/g, '').slice(0, 12);
        return `cisco-sa-${slug}-${this.rng.chars(ALNUM, 8)}`;
      }
      case 'siemens': return `SSA-${String(this.rng.int(100_000, 999_999))}`;
      default: {
        const start = Date.UTC(year, 0, 1);
        const doy = String(Math.floor((d.getTime() - start) / 86_400_000) + 1).padStart(3, '0');
        return `ICSA-${String(year % 100).padStart(2, '0')}-${doy}-${String((this.counter % 99) + 1).padStart(2, '0')}`;
      }
    }
  }
}

/** Products a vendor writes about when an advisory names no CVE. */
function vendorProducts(plan: CorpusPlan, vendor: CsafVendor): number[] {
  const test: Record<CsafVendor, (p: Product) => boolean> = {
    redhat: (p) => p.distro,
    suse: (p) => p.distro,
    cisco: (p) => p.vendor === 'cisco',
    siemens: (p) => p.vendor === 'siemens',
    cisa: (p) => p.kind === 'ics',
  };
  const ranks = plan.catalog.ranksWhere(test[vendor]);
  return ranks.length ? ranks : [0];
}

async function writeVendor(plan: CorpusPlan, vendor: CsafVendor, dir: string, pool: DeflatePool, progress: Progress): Promise<OutputStats> {
  const rng = rngFor(plan.root, 'csaf', vendor);
  const advisories: AdvisoryPlan[] = layoutAdvisories(plan, vendor);
  const ids = new TrackingIds(vendor, rng);
  const candidates = vendorProducts(plan, vendor);
  const zip = await ZipStreamWriter.open(join(dir, vendor, `${vendor}-csaf.zip`), pool);
  for (const adv of advisories) {
    const docRng = rngFor(plan.root, 'csaf-doc', vendor, adv.released);
    const vulns = adv.cves.length
      ? adv.cves.map((i) => vulnFromCve(cveDetail(plan, i)))
      : Array.from({ length: docRng.int(1, 2) }, () => vulnWithoutCve(plan.catalog.get(docRng.pick(candidates)), adv.released, docRng));
    const informational = vendor === 'redhat' && adv.cves.length === 0 && docRng.chance(0.5);
    // Red Hat's bug-fix advisories (RHBA) carry no vulnerabilities.
    const trackingId = ids.next(adv.released, vulns[0]?.product).replace(/^RHSA-/, informational ? 'RHBA-' : 'RHSA-');
    const fileName = csafFileName(trackingId);
    const doc = csafDocument({ vendor, trackingId, fileName, released: adv.released, vulns, informational }, docRng);
    await zip.add(`${new Date(adv.released).getUTCFullYear()}/${fileName}`, JSON.stringify(doc, null, 2));
    progress.tick();
  }
  return zip.close();
}

export async function writeCsaf(plan: CorpusPlan, dir: string, pool: DeflatePool, progress: Progress): Promise<Record<CsafVendor, OutputStats>> {
  progress.setTotal(Object.values(plan.counts.csaf).reduce((a, b) => a + b, 0));
  const out = {} as Record<CsafVendor, OutputStats>;
  for (const vendor of CSAF_VENDORS) out[vendor] = await writeVendor(plan, vendor, dir, pool, progress);
  return out;
}
