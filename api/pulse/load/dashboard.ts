/** The dashboard's data, from the API's query modules; computed once per snapshot. */
import type { ServingSnapshot } from '../../snapshot/serving.ts';
import { listRecentKev } from '../../queries/kev.ts';
import { trendsBody, type TrendPeriod } from '../../queries/cves-trends.ts';
import type { DashboardChanges, DashboardData } from '../pages/dashboard.tsx';

export const DASHBOARD_KEV_DAYS = 30;
export const DASHBOARD_KEV_ROWS = 10;

async function loadChanges(_snapshot: ServingSnapshot): Promise<DashboardChanges | null> {
  return null;
}

export function loadDashboard(snapshot: ServingSnapshot): Promise<DashboardData> {
  return snapshot.memo('pulse-dashboard', async () => {
    const [trends, kev, changes] = await Promise.all([
      trendsBody(snapshot),
      listRecentKev(snapshot, { days: DASHBOARD_KEV_DAYS, limit: DASHBOARD_KEV_ROWS, offset: 0 }),
      loadChanges(snapshot),
    ]);
    return {
      buildId: snapshot.buildId,
      builtAt: snapshot.manifest.built_at,
      cves: snapshot.records.size,
      changes,
      kev,
      weeks: (trends.weekly ?? []) as TrendPeriod[],
    };
  });
}
