/**
 * Reading the change history of a snapshot (`changes.parquet`, PULSE §2–§3) for the change
 * feed, the Atom feed, the stream, the notifier and the /pulse pages: one filter (ChangeFilter of
 * lib/changes/model.ts) spelled in SQL exactly as `changeMatches` spells it in JS, keyset pages
 * in feed order (newest build first, then change_id), and the stream order (oldest first).
 *
 * Queries go through `selectRows` (the snapshot's connection pool), like every api/queries module.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { type ChangeFilter, type ChangeRow, packageEntryKey, SEVERITY_ORDER, searchWords, vendorKey } from '../../lib/changes/model.ts';
import { isoTimestampSql, requireTables, selectRows, type SnapshotReader } from './support.ts';

/** A position in the history: the change and its build (build ids sort by time). */
export interface ChangePosition {
  build_id: string;
  change_id: string;
}

export interface ChangePageQuery {
  filter: ChangeFilter;
  /** Only changes detected strictly after this time (microseconds since the epoch, UTC). */
  sinceMicros?: bigint;
  /** The last change of the previous page (feed order). */
  after?: ChangePosition;
  limit: number;
}

export interface ChangePage {
  changes: ChangeRow[];
  /** The position to pass as `after` for the next page; null on the last page. */
  next: ChangePosition | null;
}

/** The select list of a ChangeRow (also read by changes-digest.ts). */
export const CHANGE_ROW_COLUMNS = `change_id, build_id, ${isoTimestampSql('detected_at')} AS detected_at, subject_type, cve_id, vendor, advisory_id,
  kind, before, after, why, title, service_severity, service_score, service_risk, in_kev, epss_score, vendor_severity,
  coalesce(vendors, []) AS vendors, coalesce(products, []) AS products, coalesce(ecosystems, []) AS ecosystems,
  coalesce(packages, []) AS packages, coalesce(cwe_ids, []) AS cwe_ids`;

/** Positional SQL parameters collected while a WHERE clause is written. */
class Params {
  readonly values: DuckDBValue[] = [];
  add(value: DuckDBValue): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** SQL rank of a severity text as SEVERITY_ORDER ranks it (-1 when absent or unknown). */
function severityRankSql(column: string): string {
  return `CASE upper(${column}) ${SEVERITY_ORDER.map((s, i) => `WHEN '${s}' THEN ${i}`).join(' ')} ELSE -1 END`;
}

/** packageEntryKey (lib/changes/model.ts) in SQL: lower case, a PyPI name as PEP 503 normalises it. */
function packageEntryKeySql(x: string): string {
  return `CASE WHEN starts_with(lower(${x}), 'pypi:') THEN 'pypi:' || regexp_replace(lower(substr(${x}, 6)), '[-_.]+', '-', 'g') ELSE lower(${x}) END`;
}

/** Text after the first ':' (the whole text without one), as changeMatches cuts a product. */
function afterColonSql(x: string): string {
  return `substr(${x}, strpos(${x}, ':') + 1)`;
}

/**
 * The WHERE conditions of a ChangeFilter, member by member the same tests as changeMatches
 * (lib/changes/model.ts); test/api/changes-feed.test.ts checks the two agree.
 */
export function changeFilterSql(filter: ChangeFilter, params: Params): string[] {
  const where: string[] = [];
  const advisory = `subject_type = 'advisory'`;
  if (filter.kinds && filter.kinds.length > 0) where.push(`kind IN (${filter.kinds.map((k) => params.add(k)).join(', ')})`);
  if (filter.vendor !== undefined) {
    const vendor = vendorKey(filter.vendor);
    const p = params.add(vendor);
    where.push(
      `list_contains(CASE WHEN ${advisory} AND vendor IS NOT NULL THEN list_prepend(regexp_replace(lower(trim(vendor)), '\\s+', '_', 'g'), coalesce(vendors, [])) ELSE coalesce(vendors, []) END, ${p})`,
    );
    if (filter.product !== undefined) where.push(`list_contains(coalesce(products, []), ${params.add(`${vendor}:${vendorKey(filter.product)}`)})`);
  } else if (filter.product !== undefined) {
    where.push(`list_bool_or(list_transform(coalesce(products, []), x -> ${afterColonSql('x')} = ${params.add(vendorKey(filter.product))}))`);
  }
  if (filter.ecosystem !== undefined) {
    const ecosystem = filter.ecosystem.toLowerCase();
    where.push(`list_bool_or(list_transform(coalesce(ecosystems, []), x -> lower(x) = ${params.add(ecosystem)}))`);
    if (filter.package !== undefined) {
      where.push(`list_contains(list_transform(coalesce(packages, []), x -> ${packageEntryKeySql('x')}), ${params.add(packageEntryKey(`${ecosystem}:${filter.package}`))})`);
    }
  } else if (filter.package !== undefined) {
    // `<ecosystem>:<name>` of one of its own ecosystems (either part may hold colons: `Ubuntu:22.04:LTS`).
    const name = params.add(filter.package);
    where.push(`list_has_any(list_transform(coalesce(packages, []), x -> ${packageEntryKeySql('x')}), list_transform(coalesce(ecosystems, []), e -> ${packageEntryKeySql(`(e || ':' || ${name})`)}))`);
  }
  if (filter.cwe !== undefined) where.push(`list_bool_or(list_transform(coalesce(cwe_ids, []), x -> upper(x) = ${params.add(filter.cwe.toUpperCase())}))`);
  if (filter.min_severity !== undefined) {
    const rank = SEVERITY_ORDER.indexOf(filter.min_severity);
    where.push(`${severityRankSql(`CASE WHEN ${advisory} THEN vendor_severity ELSE service_severity END`)} >= ${rank}`);
  }
  if (filter.min_risk !== undefined) where.push(`NOT (${advisory}) AND service_risk >= ${params.add(filter.min_risk)}`);
  if (filter.kev_only === true) where.push(`NOT (${advisory}) AND in_kev IS TRUE`);
  if (filter.search !== undefined) {
    const haystack = `lower(concat_ws(' ', cve_id, advisory_id, vendor, title, why, array_to_string(coalesce(vendors, []), ' '), array_to_string(coalesce(products, []), ' ')))`;
    for (const word of searchWords(filter.search)) where.push(`contains(${haystack}, ${params.add(word)})`);
  }
  return where;
}

function whereClause(conditions: string[]): string {
  return conditions.length > 0 ? `WHERE ${conditions.map((c) => `(${c})`).join(' AND ')}` : '';
}

/** List members come back as arrays; JSON text and nulls as they are. */
export function toChangeRows(rows: Record<string, unknown>[]): ChangeRow[] {
  return rows as unknown as ChangeRow[];
}

/** One page of matching changes, newest build first, then by change_id (feed order). */
export async function listChanges(reader: SnapshotReader, query: ChangePageQuery): Promise<ChangePage> {
  requireTables(reader, 'changes');
  const params = new Params();
  const where = changeFilterSql(query.filter, params);
  if (query.sinceMicros !== undefined) where.push(`detected_at > make_timestamp(CAST(${params.add(query.sinceMicros)} AS BIGINT))`);
  if (query.after) {
    const b = params.add(query.after.build_id);
    where.push(`build_id < ${b} OR (build_id = ${b} AND change_id > ${params.add(query.after.change_id)})`);
  }
  const rows = toChangeRows(
    await selectRows<Record<string, unknown>>(
      reader,
      `SELECT ${CHANGE_ROW_COLUMNS} FROM changes ${whereClause(where)} ORDER BY build_id DESC, change_id LIMIT ${query.limit + 1}`,
      params.values,
    ),
  );
  const more = rows.length > query.limit;
  const changes = more ? rows.slice(0, query.limit) : rows;
  const last = changes.at(-1);
  return { changes, next: more && last ? { build_id: last.build_id, change_id: last.change_id } : null };
}

/**
 * The CVE ids an advisory change is about: the ones it names in `after` and did not name in
 * `before` (all of a new advisory's; those an advisory came to name). Its `cve_id` is only the
 * first of them.
 */
const ADVISORY_CHANGE_CVES = `list_filter(coalesce(CAST(json_extract(after, '$.cve_ids') AS VARCHAR[]), []),
  id -> NOT list_contains(coalesce(CAST(json_extract(before, '$.cve_ids') AS VARCHAR[]), []), id))`;

/** Every change the history holds for one CVE (its own and advisories naming it), newest first. */
export async function cveHistory(reader: SnapshotReader, cveId: string): Promise<ChangeRow[]> {
  requireTables(reader, 'changes');
  return toChangeRows(
    await selectRows<Record<string, unknown>>(
      reader,
      `SELECT ${CHANGE_ROW_COLUMNS} FROM changes
       WHERE cve_id = $1 OR (subject_type = 'advisory' AND list_contains(${ADVISORY_CHANGE_CVES}, $1))
       ORDER BY build_id DESC, change_id`,
      [cveId],
    ),
  );
}

/**
 * Matching changes after a position in stream order (oldest build first, then change_id): what
 * an SSE stream sends after a swap, or on resume after `Last-Event-ID`. Without a position,
 * the changes of `buildId` only.
 */
export async function changesInStreamOrder(
  reader: SnapshotReader,
  filter: ChangeFilter,
  from: { after: ChangePosition } | { buildId: string },
  limit: number,
): Promise<ChangeRow[]> {
  requireTables(reader, 'changes');
  const params = new Params();
  const where = changeFilterSql(filter, params);
  if ('after' in from) {
    const b = params.add(from.after.build_id);
    where.push(`build_id > ${b} OR (build_id = ${b} AND change_id > ${params.add(from.after.change_id)})`);
  } else {
    where.push(`build_id = ${params.add(from.buildId)}`);
  }
  return toChangeRows(
    await selectRows<Record<string, unknown>>(reader, `SELECT ${CHANGE_ROW_COLUMNS} FROM changes ${whereClause(where)} ORDER BY build_id, change_id LIMIT ${limit}`, params.values),
  );
}

/** Where one change sits in the history (for `Last-Event-ID`), or null once it has aged out. */
export async function positionOfChange(reader: SnapshotReader, changeId: string): Promise<ChangePosition | null> {
  requireTables(reader, 'changes');
  const [row] = await selectRows<ChangePosition>(reader, `SELECT build_id, change_id FROM changes WHERE change_id = $1 LIMIT 1`, [changeId]);
  return row ?? null;
}

/** The newest build that recorded changes, or null for an empty history. */
export async function newestChangeBuild(reader: SnapshotReader): Promise<string | null> {
  requireTables(reader, 'changes');
  const [row] = await selectRows<{ build_id: string | null }>(reader, `SELECT max(build_id) AS build_id FROM changes`);
  return row?.build_id ?? null;
}
