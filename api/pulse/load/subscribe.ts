/**
 * `/pulse/subscribe`: the filter as the builder form sent it (the change feed's own parameter
 * schema, so a bad filter is named exactly as the feed names it), and the preview: what the
 * filter matched in the snapshot's history over the last PREVIEW_DAYS days.
 */
import type { Context } from 'hono';
import type { ChangeFilter, ChangeRow } from '../../../lib/changes/model.ts';
import { firstIssue } from '../../http/errors.ts';
import { listChanges, newestChangeBuild } from '../../queries/changes.ts';
import { listCwes, listVendors, type CweEntry, type VendorEntry } from '../../queries/catalogs.ts';
import { listEcosystems, type EcosystemEntry } from '../../queries/catalogs.ts';
import { TableUnavailableError } from '../../queries/support.ts';
import { ChangeFilterQuery, filterOfQuery } from '../../routes/change-params.ts';
import type { ServingSnapshot } from '../../snapshot/serving.ts';
import { formFields, refuseFilter } from './form-fields.ts';

export const PREVIEW_DAYS = 30;
export const PREVIEW_ROWS = 50;
/** Entries of the server-rendered datalists (the suggest endpoint serves the rest). */
const DATALIST_ROWS = 50;

export const FILTER_FIELDS = ['kind', 'vendor', 'product', 'ecosystem', 'package', 'cwe', 'search', 'min_severity', 'min_risk', 'kev_only'] as const;

/** Whether a refused parameter is one of the filter's fields (not the channel's, not the form's own). */
export function isFilterField(parameter: string | undefined): parameter is (typeof FILTER_FIELDS)[number] {
  return (FILTER_FIELDS as readonly (string | undefined)[]).includes(parameter);
}

export interface SubscribeView {
  /** The filter fields as sent (kinds ticked joined by commas). */
  form: Record<string, string>;
  filter: ChangeFilter;
  /** null when no preview was asked for (no filter field sent). */
  preview: { changes: ChangeRow[]; more: boolean; since: string } | null;
  /** false when the snapshot has no change history to preview from. */
  history: boolean;
  vendors: VendorEntry[];
  cwes: CweEntry[];
  ecosystems: EcosystemEntry[];
}

/** The builder's fields from a query or a posted form: empty ones dropped, ticked kinds joined. */
export function filterFormOf(all: Record<string, string[]>): Record<string, string> {
  return formFields(all, FILTER_FIELDS, 'kind');
}

/**
 * The filter fields as typed, for a form shown again: never refused (a field given twice shows
 * its first value; filterFormOf, which refuses it, decides what is done).
 */
export function typedFilterForm(sent: Record<string, string[]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of FILTER_FIELDS) {
    const values = (sent[name] ?? []).map((v) => v.trim()).filter((v) => v !== '');
    if (values.length > 0) out[name] = name === 'kind' ? values.join(',') : values[0]!;
  }
  return out;
}

export function filterOfForm(form: Record<string, string>): ChangeFilter {
  const parsed = ChangeFilterQuery.safeParse(form);
  if (!parsed.success) {
    const { parameter, message } = firstIssue(parsed.error.issues, 'filter');
    refuseFilter(parameter, message);
  }
  return filterOfQuery(parsed.data);
}

async function orEmpty<T>(read: () => Promise<T[]>): Promise<T[]> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof TableUnavailableError) return [];
    throw err;
  }
}

export function loadSubscribe(snapshot: ServingSnapshot, c: Context): Promise<SubscribeView> {
  const form = filterFormOf(c.req.queries());
  return loadSubscribeFor(snapshot, form, Object.keys(form).length > 0 || c.req.query('preview') !== undefined);
}

/** The page for a filter form; `asked`: show the preview. */
export async function loadSubscribeFor(snapshot: ServingSnapshot, form: Record<string, string>, asked: boolean): Promise<SubscribeView> {
  const filter = filterOfForm(form);
  const sinceMs = Date.parse(snapshot.manifest.built_at) - PREVIEW_DAYS * 86_400_000;
  let preview: SubscribeView['preview'] = null;
  // A snapshot whose changes table records no build (the first build of a data folder) has no
  // history, as the dashboard says: "nothing matched since …" would read as a filter too narrow.
  const history = await snapshot.memo('pulse-has-history', async () => {
    try {
      return (await newestChangeBuild(snapshot)) !== null;
    } catch (err) {
      if (err instanceof TableUnavailableError) return false;
      throw err;
    }
  });
  if (asked && history) {
    const page = await listChanges(snapshot, { filter, sinceMicros: BigInt(sinceMs) * 1000n, limit: PREVIEW_ROWS });
    preview = { changes: page.changes, more: page.next !== null, since: new Date(sinceMs).toISOString() };
  }
  const lists = await snapshot.memo('pulse-subscribe-lists', async () => ({
    vendors: await orEmpty(async () => (await listVendors(snapshot, undefined, { limit: DATALIST_ROWS, offset: 0 })).vendors),
    cwes: await orEmpty(async () => (await listCwes(snapshot, undefined, { limit: DATALIST_ROWS, offset: 0 })).cwes),
    ecosystems: await orEmpty(() => listEcosystems(snapshot)),
  }));
  return { form, filter, preview, history, ...lists };
}
