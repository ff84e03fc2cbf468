/**
 * CVEs most recently added to CISA's KEV catalog (contract 4.11 `/kev/recent`), newest first,
 * with the catalog's fields and the service's score, severity and risk beside them.
 *
 * "Recent" is counted back from the catalog the snapshot holds (its release date, else its
 * newest addition), not from the wall clock: the answer is a property of the snapshot, so it
 * is the same on every replica and for every cached copy of it.
 */
import { requireTables, selectRows, shiftDay, type SnapshotReader } from './support.ts';

export const DEFAULT_KEV_DAYS = 30;

export interface KevRecentQuery {
  /** Window in days ending at `as_of` (inclusive); undefined: no window. */
  days?: number;
  limit: number;
  offset: number;
}

export interface KevEntry {
  cve_id: string;
  vendor_project: string | null;
  product: string | null;
  vulnerability_name: string | null;
  date_added: string;
  due_date: string | null;
  short_description: string | null;
  required_action: string | null;
  known_ransomware_campaign_use: string | null;
  notes: string | null;
  cwes: string[];
  /** Null when the snapshot holds no record of the CVE. */
  service_score: number | null;
  score_assessed: boolean | null;
  service_severity: string | null;
  service_risk: number | null;
}

export interface KevRecent {
  /** The catalog date the window counts back from (YYYY-MM-DD); null for an empty catalog. */
  as_of: string | null;
  days: number | null;
  /** First day inside the window; null without a window. */
  window_start: string | null;
  total: number;
  limit: number;
  offset: number;
  cves: KevEntry[];
}

export async function listRecentKev(reader: SnapshotReader, query: KevRecentQuery): Promise<KevRecent> {
  requireTables(reader, 'kev');
  const [anchor] = await selectRows<{ as_of: string | null }>(
    reader,
    `SELECT strftime(greatest(max(try_strptime(catalog_version, '%Y.%m.%d'))::DATE, max(date_added)), '%Y-%m-%d') AS as_of FROM kev`,
  );
  const asOf = anchor?.as_of ?? null;
  const windowStart = query.days !== undefined && asOf !== null ? shiftDay(asOf, 1 - query.days) : null;
  const where = windowStart !== null ? `WHERE k.date_added >= CAST($1 AS DATE)` : '';
  const params = windowStart !== null ? [windowStart] : [];

  const [count] = await selectRows<{ total: number }>(reader, `SELECT count(*)::INTEGER AS total FROM kev k ${where}`, params);
  const cves = await selectRows<KevEntry>(
    reader,
    `SELECT k.cve_id, k.vendor_project, k.product, k.vulnerability_name,
            strftime(k.date_added, '%Y-%m-%d') AS date_added, strftime(k.due_date, '%Y-%m-%d') AS due_date,
            k.short_description, k.required_action, k.known_ransomware_campaign_use, k.notes,
            coalesce(k.cwes, []) AS cwes,
            c.service_score, c.score_assessed, c.service_severity, c.service_risk
     FROM kev k LEFT JOIN cves c USING (cve_id)
     ${where}
     ORDER BY k.date_added DESC, k.cve_id DESC
     LIMIT ${query.limit} OFFSET ${query.offset}`,
    params,
  );
  return { as_of: asOf, days: query.days ?? null, window_start: windowStart, total: count?.total ?? 0, limit: query.limit, offset: query.offset, cves };
}
