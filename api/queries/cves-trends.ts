/**
 * `/cves/trends` (contract 2.7, shape ours): weekly and monthly publication volume of active
 * CVEs with the service-severity split and KEV count of each period (precomputed by the build,
 * `trends_weekly` / `trends_monthly`), the change from the period before, the week-over-week
 * comparison and the severity distribution over the weekly window.
 *
 * Windows are anchored at the snapshot's newest publication week (and its month), not at the
 * clock: a snapshot answers the same whenever it is asked, and an old snapshot does not show
 * empty recent weeks. Periods without publications are present with zeros. The anchor period
 * is usually still running when the snapshot is built; `complete` says so, and the
 * week-over-week comparison uses the last complete week.
 */
import type { ServingSnapshot } from '../snapshot/serving.ts';

export const TREND_WEEKS = 26;
export const TREND_MONTHS = 24;

const BUCKETS = ['total', 'critical', 'high', 'medium', 'low', 'unscored', 'kev'] as const;
type Counts = Record<(typeof BUCKETS)[number], number>;

export interface TrendPeriod extends Counts {
  period_start: string;
  period_end: string;
  /** total minus the previous period's total. */
  delta: number;
  /** delta as a percentage of the previous period's total (one decimal); null when that was 0. */
  delta_pct: number | null;
  /** The snapshot's data reaches past this period's end. */
  complete: boolean;
}

const DAY_MS = 86_400_000;

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function zero(): Counts {
  return { total: 0, critical: 0, high: 0, medium: 0, low: 0, unscored: 0, kev: 0 };
}

async function readPeriods(snapshot: ServingSnapshot, table: 'trends_weekly' | 'trends_monthly'): Promise<Map<string, Counts>> {
  const reader = await snapshot.pool.read(
    `SELECT strftime(period_start, '%Y-%m-%d') AS period_start, ${BUCKETS.map((b) => `CAST(${b} AS DOUBLE) AS ${b}`).join(', ')} FROM ${table}`,
  );
  const out = new Map<string, Counts>();
  for (const row of reader.getRowObjectsJS() as Record<string, unknown>[]) {
    const counts = zero();
    for (const b of BUCKETS) counts[b] = Number(row[b] ?? 0);
    out.set(String(row.period_start), counts);
  }
  return out;
}

function pct(delta: number, previous: number): number | null {
  return previous === 0 ? null : Math.round((delta / previous) * 1000) / 10;
}

/** Consecutive periods ending at `anchor`, zeros where nothing was published. */
function series(rows: Map<string, Counts>, starts: number[], nextStart: (ms: number) => number, horizonMs: number): TrendPeriod[] {
  const out: TrendPeriod[] = [];
  for (let i = 1; i < starts.length; i++) {
    const start = starts[i]!;
    const counts = rows.get(isoDay(start)) ?? zero();
    const previous = rows.get(isoDay(starts[i - 1]!))?.total ?? 0;
    const end = nextStart(start);
    out.push({
      period_start: isoDay(start),
      period_end: isoDay(end - DAY_MS),
      ...counts,
      delta: counts.total - previous,
      delta_pct: pct(counts.total - previous, previous),
      complete: horizonMs >= end,
    });
  }
  return out;
}

function addMonths(ms: number, months: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1);
}

async function computeTrends(snapshot: ServingSnapshot): Promise<Record<string, unknown>> {
  const newestReader = await snapshot.pool.read(
    `SELECT CAST(epoch_ms(max(published)) AS DOUBLE) FROM cves WHERE status = 'active'`,
  );
  const newest = newestReader.getRows()[0]?.[0];
  const weekly = await readPeriods(snapshot, 'trends_weekly');
  const monthly = await readPeriods(snapshot, 'trends_monthly');
  if (newest === null || newest === undefined) {
    return { anchor: null, weekly: [], monthly: [], week_over_week: null, severity_distribution: null };
  }
  const horizon = Number(newest);
  const day = Date.UTC(new Date(horizon).getUTCFullYear(), new Date(horizon).getUTCMonth(), new Date(horizon).getUTCDate());
  // ISO weeks start on Monday, as DuckDB's date_trunc('week') does.
  const anchorWeek = day - ((new Date(day).getUTCDay() + 6) % 7) * DAY_MS;
  const anchorMonth = addMonths(day, 0);
  // One period more than shown, so the first shown one has a delta.
  const weekStarts = Array.from({ length: TREND_WEEKS + 1 }, (_, i) => anchorWeek - (TREND_WEEKS - i) * 7 * DAY_MS);
  const monthStarts = Array.from({ length: TREND_MONTHS + 1 }, (_, i) => addMonths(anchorMonth, i - TREND_MONTHS));
  // The newest publication is inside the data, so a period is complete once the data reaches its end.
  const weeks = series(weekly, weekStarts, (ms) => ms + 7 * DAY_MS, horizon);
  const months = series(monthly, monthStarts, (ms) => addMonths(ms, 1), horizon);

  const completeWeeks = weeks.filter((w) => w.complete);
  const last = completeWeeks[completeWeeks.length - 1];
  const before = last ? weekly.get(isoDay(Date.parse(`${last.period_start}T00:00:00Z`) - 7 * DAY_MS)) : undefined;
  const distribution = zero();
  for (const w of weeks) for (const b of BUCKETS) distribution[b] += w[b];

  return {
    anchor: {
      newest_published: new Date(horizon).toISOString(),
      week_start: isoDay(anchorWeek),
      month_start: isoDay(anchorMonth),
    },
    weekly: weeks,
    monthly: months,
    week_over_week: last
      ? {
          week_start: last.period_start,
          previous_week_start: isoDay(Date.parse(`${last.period_start}T00:00:00Z`) - 7 * DAY_MS),
          total: last.total,
          previous_total: before?.total ?? 0,
          delta: last.total - (before?.total ?? 0),
          delta_pct: pct(last.total - (before?.total ?? 0), before?.total ?? 0),
        }
      : null,
    severity_distribution: {
      basis: 'service_severity',
      period_start: weeks[0]?.period_start ?? null,
      period_end: weeks[weeks.length - 1]?.period_end ?? null,
      ...distribution,
    },
  };
}

/** The trends body, computed once per snapshot. */
export function trendsBody(snapshot: ServingSnapshot): Promise<Record<string, unknown>> {
  return snapshot.memo('trends', () => computeTrends(snapshot));
}
