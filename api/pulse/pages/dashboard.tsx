/**
 * `/pulse`: what changed in the last build and over the last 7 days (counts by kind, the top
 * changes by risk), the latest KEV additions, and weekly new CVEs by severity. With
 * JavaScript on, changes pushed by the stream appear in the live section as builds publish.
 */
import type { KevRecent } from '../../queries/kev.ts';
import type { TrendPeriod } from '../../queries/cves-trends.ts';
import type { ChangeRow } from '../../../lib/changes/model.ts';
import type { ChangedCve } from '../../queries/changes-digest.ts';
import { CHANGE_KINDS } from '../../../lib/changes/model.ts';
import { KevBadge, SeverityBadge } from '../components/badges.tsx';
import { TrendChart } from '../components/trend-chart.tsx';
import { Breakable } from '../components/breakable.tsx';
import { advisoryPath, count, counted, cvePath, day, fixed, kindLabel, minute } from '../format.ts';
import { Layout } from '../layout.tsx';

export interface ChangeWindow {
  /** Changes per kind (kinds with none are left out). */
  byKind: Record<string, number>;
  total: number;
}

export interface DashboardChanges {
  lastBuild: ChangeWindow & { buildId: string | null; detectedAt: string | null };
  lastWeek: ChangeWindow;
  /** The window's changed CVEs, highest risk first (one row per CVE). */
  top: ChangedCve[];
}

export interface DashboardData {
  buildId: string;
  builtAt: string;
  /**
   * The CVEs the list shows by default (status active: the summary's `total`) and the rejected
   * ones, apart: one count of both ("86 CVEs") disagreed with the list ("of 82 matching").
   */
  cves: { active: number; rejected: number };
  /** null when this snapshot carries no change history (a first build, or before the change step). */
  changes: DashboardChanges | null;
  kev: KevRecent;
  weeks: TrendPeriod[];
}

/**
 * Counts per kind. `live`: every kind is listed (zeros too), for pulse.js to count the changes
 * of a build the stream brings into it (`data-live-count` names the kind).
 */
function KindCounts({ window, id, live }: { window: ChangeWindow; id: string; live?: boolean }) {
  const kinds = CHANGE_KINDS.filter((k) => (window.byKind[k] ?? 0) > 0 || live);
  return (
    <ul class="counts" id={id}>
      {kinds.map((k) => (
        <li>
          <span class="n" data-kind={k} data-live-count={live ? k : undefined}>
            {count(window.byKind[k] ?? 0)}
          </span>
          {kindLabel(k)}
        </li>
      ))}
    </ul>
  );
}

export function subjectLink(change: Pick<ChangeRow, 'cve_id' | 'vendor' | 'advisory_id'>) {
  if (change.cve_id) return <a href={cvePath(change.cve_id)}>{change.cve_id}</a>;
  if (change.vendor && change.advisory_id) return <a href={advisoryPath(change.vendor, change.advisory_id)}>{change.advisory_id}</a>;
  return <span>{change.advisory_id ?? 'unknown subject'}</span>;
}

function ChangesSection({ changes }: { changes: DashboardChanges | null }) {
  if (changes === null) {
    return (
      <section aria-labelledby="changes-h">
        <h2 id="changes-h">What changed</h2>
        <p>This snapshot carries no change history yet: the first build of a data folder records no changes. The next build will list what it changed here.</p>
      </section>
    );
  }
  return (
    <section aria-labelledby="changes-h">
      <h2 id="changes-h">What changed</h2>
      <div class="grid">
        {/* pulse.js shows a build the stream brings here: its id and time, its counts from 0. */}
        <div class="panel" id="last-build" data-build-id={changes.lastBuild.buildId ?? ''}>
          <h3>Last build</h3>
          <p class="muted">
            Build <code id="last-build-id">{changes.lastBuild.buildId ?? 'none yet'}</code>, <span id="last-build-at" class="ident">{minute(changes.lastBuild.detectedAt) || 'never'}</span>:{' '}
            <span id="last-build-total" data-live-total>
              {count(changes.lastBuild.total)}
            </span>{' '}
            <span class="noun">{changes.lastBuild.total === 1 ? 'change' : 'changes'}</span>.
          </p>
          <KindCounts window={changes.lastBuild} id="counts-last-build" live />
        </div>
        {/* and adds its changes here. */}
        <div class="panel" id="last-week">
          <h3>Last 7 days</h3>
          <p class="muted">
            <span id="last-week-total" data-live-total>
              {count(changes.lastWeek.total)}
            </span>{' '}
            <span class="noun">{changes.lastWeek.total === 1 ? 'change' : 'changes'}</span>.
          </p>
          <KindCounts window={changes.lastWeek} id="counts-last-week" live />
        </div>
      </div>
      <h3>Top changes by risk, last 7 days</h3>
      {changes.top.length === 0 ? (
        <p>No CVE changed in the last 7 days.</p>
      ) : (
        <div class="table-wrap">
          <table id="top-changes" class="stack">
            <thead>
              <tr>
                <th scope="col">Subject</th>
                <th scope="col">Changes</th>
                <th scope="col" class="num">
                  Risk
                </th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {changes.top.map((ch) => (
                <tr>
                  <td>
                    {subjectLink(ch)} <SeverityBadge severity={ch.service_severity} /> {ch.in_kev ? <KevBadge /> : null}
                  </td>
                  <td data-label="Changes">{ch.kinds.map(kindLabel).join(', ')}</td>
                  <td class="num" data-label="Risk">
                    {fixed(ch.service_risk)}
                  </td>
                  <td data-label="Why">
                    <Breakable text={ch.why} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function DashboardPage({ data }: { data: DashboardData }) {
  return (
    <Layout title="Dashboard" section="dashboard" buildId={data.buildId}>
      <h1>What changed, and what matters</h1>
      <p class="lead">
        <a href="/pulse/cves" id="active-count">
          {counted(data.cves.active, 'CVE')}
        </a>
        {data.cves.rejected > 0 ? (
          <>
            {' '}
            (and{' '}
            <a href="/pulse/cves?status=rejected" id="rejected-count">
              {count(data.cves.rejected)} rejected
            </a>
            )
          </>
        ) : null}{' '}
        in the snapshot built {minute(data.builtAt)}.
      </p>
      <ChangesSection changes={data.changes} />
      <section aria-labelledby="live-h" class="panel live">
        <h2 id="live-h">Live</h2>
        <p id="live-status" role="status">
          Changes appear here as new builds are published (needs JavaScript). Without it, reload the page or follow the <a href="/pulse/feeds/changes.atom">Atom feed</a>.
        </p>
        <ul id="live-list" data-stream="/pulse/stream"></ul>
      </section>
      <section aria-labelledby="kev-h">
        <h2 id="kev-h">KEV additions</h2>
        <p class="muted">
          {data.kev.as_of
            ? `${count(data.kev.total)} added to CISA's catalog in the ${data.kev.days} days up to ${data.kev.as_of}.`
            : 'The snapshot holds no KEV catalog.'}
        </p>
        {data.kev.cves.length > 0 ? (
          <div class="table-wrap">
            <table id="kev-additions">
              <thead>
                <tr>
                  <th scope="col">CVE</th>
                  <th scope="col">Added</th>
                  <th scope="col" class="hide-sm">
                    Vendor / product
                  </th>
                  <th scope="col">Severity</th>
                  <th scope="col" class="num">
                    Risk
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.kev.cves.map((k) => (
                  <tr>
                    <td>
                      <a href={cvePath(k.cve_id)}>{k.cve_id}</a>
                    </td>
                    <td class="date">{day(k.date_added)}</td>
                    {/* Upstream prose (pulse.css .prose): one long word breaks in its column, the severity and risk stay in sight. */}
                    <td class="hide-sm">
                      <span class="prose">{[k.vendor_project, k.product].filter(Boolean).join(' / ')}</span>
                    </td>
                    <td>
                      <SeverityBadge severity={k.service_severity} />
                    </td>
                    <td class="num">{fixed(k.service_risk)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>
      <section aria-labelledby="trend-h">
        <h2 id="trend-h">New CVEs per week</h2>
        <TrendChart weeks={data.weeks} />
      </section>
    </Layout>
  );
}
