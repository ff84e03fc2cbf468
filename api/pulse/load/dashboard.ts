/** The dashboard's data, from the API's query modules; computed once per snapshot. */
import type { ServingSnapshot } from '../../snapshot/serving.ts';
import { listRecentKev } from '../../queries/kev.ts';
import { summaryBase } from '../../queries/cves-summary.ts';
import { trendsBody, type TrendPeriod } from '../../queries/cves-trends.ts';
import { newestChangeBuild } from '../../queries/changes.ts';
import { buildDetectedAt, buildKindCounts, recentKindCounts, topChangedCves } from '../../queries/changes-digest.ts';
import { TableUnavailableError } from '../../queries/support.ts';
import type { DashboardChanges, DashboardData } from '../pages/dashboard.tsx';

export const DASHBOARD_KEV_DAYS = 30;
export const DASHBOARD_KEV_ROWS = 10;

export const DASHBOARD_WINDOW_DAYS = 7;
export const DASHBOARD_TOP_ROWS = 10;

/**
 * The change sections, or null when the snapshot has no change history (a first build, a
 * snapshot from before the change step, or an unreadable changes table).
 */
async function loadChanges(snapshot: ServingSnapshot): Promise<DashboardChanges | null> {
  try {
    if ((await newestChangeBuild(snapshot)) === null) return null;
    const since = BigInt(Date.parse(snapshot.manifest.built_at) - DASHBOARD_WINDOW_DAYS * 86_400_000) * 1000n;
    // The last build is the one served, even when it changed nothing (a rebuild, a quiet poll):
    // the newest build with changes stood in for it, its counts under "Last build".
    const lastBuild = await buildKindCounts(snapshot, snapshot.buildId);
    const detectedAt = (await buildDetectedAt(snapshot, snapshot.buildId)) ?? snapshot.manifest.built_at;
    const lastWeek = await recentKindCounts(snapshot, since);
    const top = await topChangedCves(snapshot, since, DASHBOARD_TOP_ROWS);
    return { lastBuild: { ...lastBuild, buildId: snapshot.buildId, detectedAt }, lastWeek, top };
  } catch (err) {
    if (err instanceof TableUnavailableError) return null;
    throw err;
  }
}

export function loadDashboard(snapshot: ServingSnapshot): Promise<DashboardData> {
  return snapshot.memo('pulse-dashboard', async () => {
    const [summary, trends, kev, changes] = await Promise.all([
      summaryBase(snapshot),
      trendsBody(snapshot),
      listRecentKev(snapshot, { days: DASHBOARD_KEV_DAYS, limit: DASHBOARD_KEV_ROWS, offset: 0 }),
      loadChanges(snapshot),
    ]);
    return {
      buildId: snapshot.buildId,
      builtAt: snapshot.manifest.built_at,
      // The API summary's counts, which the CVE list's totals agree with.
      cves: { active: Number(summary.total ?? 0), rejected: Number(summary.rejected ?? 0) },
      changes,
      kev,
      weeks: (trends.weekly ?? []) as TrendPeriod[],
    };
  });
}
