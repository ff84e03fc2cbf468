/** The advisory pages' data, from the API's advisory queries. */
import type { Context } from 'hono';
import { findVendorAdvisory, listVendorAdvisories, type AdvisoryDetail, type AdvisoryPage } from '../../queries/advisories.ts';
import { parseInteger } from '../../http/params.ts';
import type { ServingSnapshot } from '../../snapshot/serving.ts';
import { PageError } from '../page-response.ts';
import { formFields, refuseFilter } from './form-fields.ts';

export const ADVISORY_PAGE_LIMIT = 25;

export interface AdvisoryListView {
  page: AdvisoryPage;
  vendors: string[];
  vendor: string | null;
  /** 'yes' | 'no' | null (all) */
  hasCve: 'yes' | 'no' | null;
  next: string | null;
  prev: string | null;
  /** Past the end (no row from the offset on): the query of the last page, or of the first when there is none. */
  pastEnd: string | null;
  /** The page's CVE ids that have a page in this snapshot (the others are shown unlinked). */
  knownCves: Set<string>;
}

async function advisoryVendors(snapshot: ServingSnapshot): Promise<string[]> {
  return snapshot.memo('pulse-advisory-vendors', async () => {
    const reader = await snapshot.pool.read(`SELECT DISTINCT vendor FROM advisories ORDER BY vendor`);
    return reader.getRows().map((r) => String(r[0]));
  });
}

export async function loadAdvisoryList(snapshot: ServingSnapshot, c: Context): Promise<AdvisoryListView> {
  const form = formFields(c.req.queries(), ['vendor', 'has_cve', 'offset']);
  const vendor = form.vendor ?? null;
  // The form's yes/no, and the API's true/false.
  const hasCveSent = form.has_cve?.toLowerCase() ?? null;
  const hasCveRaw = hasCveSent === 'true' ? 'yes' : hasCveSent === 'false' ? 'no' : hasCveSent;
  if (hasCveRaw !== null && hasCveRaw !== 'yes' && hasCveRaw !== 'no') refuseFilter('has_cve', 'has_cve: expected yes or no (or true or false)');
  const offsetRaw = form.offset ?? '0';
  let offset: number;
  try {
    offset = parseInteger(offsetRaw, 0, 1_000_000_000);
  } catch (err) {
    refuseFilter('offset', `offset: ${(err as Error).message}`);
  }
  const vendors = snapshot.unreadableTables.has('advisories') ? [] : await advisoryVendors(snapshot);
  if (vendor !== null && !vendors.some((v) => v.toLowerCase() === vendor.toLowerCase())) {
    refuseFilter('vendor', `vendor: no advisory of "${vendor}" in this snapshot (known: ${vendors.join(', ') || 'none'})`);
  }
  const page = await listVendorAdvisories(snapshot, {
    ...(vendor !== null ? { vendor } : {}),
    ...(hasCveRaw !== null ? { hasCve: hasCveRaw === 'yes' } : {}),
    limit: ADVISORY_PAGE_LIMIT,
    offset,
  });
  const link = (at: number) => {
    const params = new URLSearchParams();
    if (vendor !== null) params.set('vendor', vendor);
    if (hasCveRaw !== null) params.set('has_cve', hasCveRaw);
    if (at > 0) params.set('offset', String(at));
    return params.toString();
  };
  const lastOffset = page.total > 0 ? Math.floor((page.total - 1) / ADVISORY_PAGE_LIMIT) * ADVISORY_PAGE_LIMIT : 0;
  const pastEnd = page.advisories.length === 0 && offset > 0 ? link(lastOffset) : null;
  const knownCves = new Set(page.advisories.flatMap((a) => a.cve_ids).filter((id) => snapshot.records.docOf(id) !== undefined));
  return {
    page,
    knownCves,
    vendors,
    vendor,
    hasCve: hasCveRaw as 'yes' | 'no' | null,
    next: offset + page.advisories.length < page.total ? link(offset + ADVISORY_PAGE_LIMIT) : null,
    // Past the end, a step back (offset − 25) is past the end again: back is the last page.
    prev: offset > 0 ? link(pastEnd !== null ? lastOffset : Math.max(0, offset - ADVISORY_PAGE_LIMIT)) : null,
    pastEnd,
  };
}

export async function loadAdvisory(snapshot: ServingSnapshot, vendor: string, advisoryId: string): Promise<AdvisoryDetail> {
  const advisory = await findVendorAdvisory(snapshot, vendor, advisoryId);
  if (!advisory) throw new PageError(404, 'No such advisory', `No advisory ${advisoryId} of ${vendor} in this snapshot (${snapshot.buildId}).`);
  return advisory;
}
