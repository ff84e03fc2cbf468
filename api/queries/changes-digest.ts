/**
 * Summaries of a snapshot's change history for the /pulse dashboard: changes per kind in one
 * build or since a time, and the CVEs whose changes matter most (highest current risk), one
 * row per CVE with every kind it changed by. Windows are counted back from the snapshot's own
 * build time, never the clock, so a page is a function of its snapshot (and its ETag holds).
 */
import { CHANGE_ROW_COLUMNS, toChangeRows } from './changes.ts';
import { isoTimestampSql, requireTables, selectRows, type SnapshotReader } from './support.ts';
import { CHANGE_KINDS, type ChangeRow } from '../../lib/changes/model.ts';

export interface KindCounts {
  byKind: Record<string, number>;
  total: number;
}

export interface ChangedCve extends ChangeRow {
  /** Every kind this CVE changed by in the window, once each, in CHANGE_KINDS order (the tiles'). */
  kinds: string[];
}

async function countByKind(reader: SnapshotReader, where: string, params: (string | bigint)[]): Promise<KindCounts> {
  const rows = await selectRows<{ kind: string; n: number }>(reader, `SELECT kind, count(*)::INTEGER AS n FROM changes WHERE ${where} GROUP BY kind`, params);
  const byKind: Record<string, number> = {};
  let total = 0;
  for (const r of rows) {
    byKind[r.kind] = r.n;
    total += r.n;
  }
  return { byKind, total };
}

/** Changes of one build, per kind. */
export function buildKindCounts(reader: SnapshotReader, buildId: string): Promise<KindCounts> {
  requireTables(reader, 'changes');
  return countByKind(reader, 'build_id = $1', [buildId]);
}

/** Changes detected after `sinceMicros` (µs since the epoch, UTC), per kind. */
export function recentKindCounts(reader: SnapshotReader, sinceMicros: bigint): Promise<KindCounts> {
  requireTables(reader, 'changes');
  return countByKind(reader, 'detected_at > make_timestamp(CAST($1 AS BIGINT))', [sinceMicros]);
}

/** When a build's changes were detected (its build time), or null. */
export async function buildDetectedAt(reader: SnapshotReader, buildId: string): Promise<string | null> {
  requireTables(reader, 'changes');
  const [row] = await selectRows<{ at: string | null }>(
    reader,
    `SELECT ${isoTimestampSql('max(detected_at)')} AS at FROM changes WHERE build_id = $1`,
    [buildId],
  );
  return row?.at ?? null;
}

/**
 * The CVEs changed after `sinceMicros`, highest current risk first: each CVE's newest change
 * (its brief is the newest), with every kind it changed by in the window.
 */
export async function topChangedCves(reader: SnapshotReader, sinceMicros: bigint, limit: number): Promise<ChangedCve[]> {
  requireTables(reader, 'changes');
  const rows = await selectRows<Record<string, unknown>>(
    reader,
    `WITH w AS (
       SELECT *, list(kind) OVER (PARTITION BY cve_id ORDER BY change_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS kinds,
              row_number() OVER (PARTITION BY cve_id ORDER BY build_id DESC, change_id) AS nth
       FROM changes
       WHERE subject_type = 'cve' AND cve_id IS NOT NULL AND detected_at > make_timestamp(CAST($1 AS BIGINT)))
     SELECT ${CHANGE_ROW_COLUMNS}, list_distinct(kinds) AS kinds FROM w WHERE nth = 1
     ORDER BY service_risk DESC NULLS LAST, cve_id DESC
     LIMIT ${Math.trunc(limit)}`,
    [sinceMicros],
  );
  // list_distinct keeps no order (the rows read "risk changed, ssvc changed, kev added"): the
  // kinds are put in the order the page's tiles name them.
  return (toChangeRows(rows) as ChangedCve[]).map((row) => ({ ...row, kinds: [...row.kinds].sort((a, b) => kindRank(a) - kindRank(b)) }));
}

function kindRank(kind: string): number {
  const rank = (CHANGE_KINDS as readonly string[]).indexOf(kind);
  return rank === -1 ? CHANGE_KINDS.length : rank;
}
