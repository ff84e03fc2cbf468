/** `/pulse/cves`: the filter form (a plain GET form, works without JavaScript) and a page of CVEs. */
import { SEVERITIES, STATUSES } from '../../queries/cves-filter.ts';
import { SORTS } from '../../queries/cves-list.ts';
import { CveList } from '../components/cve-list.tsx';
import { count, counted } from '../format.ts';
import { Layout } from '../layout.tsx';
import type { CveListView } from '../load/cves-list.ts';

const SORT_LABELS: Record<(typeof SORTS)[number], string> = {
  published: 'Newest published',
  epss: 'EPSS probability',
  severity: 'Service score',
  cvss_v3_score: 'CVSS v3 score',
};

function Pager({ view }: { view: CveListView }) {
  return (
    <nav class="pager" aria-label="Pages">
      {view.prev !== null ? (
        <a href={`/pulse/cves${view.prev ? `?${view.prev}` : ''}`} rel="prev" id="page-prev">
          ← Previous page
        </a>
      ) : (
        <span aria-disabled="true">← Previous page</span>
      )}
      {view.first !== null ? <a href={`/pulse/cves${view.first ? `?${view.first}` : ''}`}>First page</a> : null}
      {view.next !== null ? (
        <a href={`/pulse/cves?${view.next}`} rel="next" id="page-next">
          Next page →
        </a>
      ) : (
        <span aria-disabled="true">Next page →</span>
      )}
    </nav>
  );
}

function resultLine(view: CveListView): string {
  if (view.pastEnd) {
    const page = view.pageNumber !== null ? `Page ${count(view.pageNumber)}` : view.firstRow !== null ? `Row ${count(view.firstRow)}` : 'This page';
    if (view.total === null || view.total === 0) return `${page} is past the end of the results.`;
    const matching = `${view.totalIsLowerBound ? 'at least ' : ''}${count(view.total)} matching CVE${view.total === 1 ? '' : 's'}`;
    return view.lastPageNumber !== null
      ? `${page} is past the end: ${matching}, on ${count(view.lastPageNumber)} page${view.lastPageNumber === 1 ? '' : 's'}.`
      : `${page} is past the end: ${matching}.`;
  }
  const relaxed = view.searchRelaxed ? ' The phrase search ran out of time, so its words were matched anywhere.' : '';
  const total = view.total === null ? null : `${view.totalIsLowerBound ? 'at least ' : ''}${count(view.total)}`;
  // A page asked by an offset that is no multiple of the page size is named by its rows.
  if (view.pageNumber === null && view.firstRow !== null && view.cves.length > 0) {
    const rows = `Rows ${count(view.firstRow)}–${count(view.firstRow + view.cves.length - 1)}`;
    return `${rows}${total === null ? ' shown.' : ` of ${total} matching ${view.total === 1 ? 'CVE' : 'CVEs'}.`}${relaxed}`;
  }
  const page = view.pageNumber !== null ? `Page ${view.pageNumber}` : 'A page';
  if (total === null) return `${page}: ${counted(view.cves.length, 'CVE')} shown.`;
  return `${page}: ${view.cves.length} of ${total} matching ${view.total === 1 && !view.totalIsLowerBound ? 'CVE' : 'CVEs'}.${relaxed}`;
}

export function CveListPage({ view, buildId }: { view: CveListView; buildId: string }) {
  const f = view.form;
  return (
    <Layout title="CVEs" section="cves" buildId={buildId}>
      <h1>Browse and search CVEs</h1>
      <form class="filters" method="get" action="/pulse/cves" role="search" aria-label="Filter CVEs">
        <div class="wide">
          <label for="f-search">Search</label>
          <input id="f-search" type="search" name="search" value={f.search ?? ''} placeholder='e.g. linux kernel "use after free"' />
        </div>
        <fieldset class="wide">
          <legend>Severity</legend>
          {SEVERITIES.map((s) => (
            <label>
              <input type="checkbox" name="severity" value={s} checked={view.severities.includes(s)} /> {s.toLowerCase()}
            </label>
          ))}
        </fieldset>
        <div>
          <label for="f-basis">Severity of</label>
          <select id="f-basis" name="severity_basis">
            <option value="nvd" selected={f.severity_basis !== 'svc'}>
              NVD's CVSS v3 label
            </option>
            <option value="svc" selected={f.severity_basis === 'svc'}>
              the service score
            </option>
          </select>
        </div>
        <div>
          <label for="f-min-cvss">Lowest CVSS</label>
          <input id="f-min-cvss" type="text" inputmode="decimal" name="min_cvss" value={f.min_cvss ?? ''} placeholder="0–10" />
        </div>
        <div>
          <label for="f-year">Year published</label>
          <input id="f-year" type="text" inputmode="numeric" name="year" value={f.year ?? ''} placeholder="e.g. 2024" />
        </div>
        <div>
          <label for="f-since">Modified since</label>
          <input id="f-since" type="text" name="since" value={f.since ?? ''} placeholder="YYYY-MM-DD" />
        </div>
        <div>
          <label for="f-until">Modified before</label>
          <input id="f-until" type="text" name="until" value={f.until ?? ''} placeholder="YYYY-MM-DD" />
        </div>
        <div>
          <label for="f-vendor">Vendor</label>
          <input id="f-vendor" type="text" name="vendor" value={f.vendor ?? ''} placeholder="e.g. microsoft" />
        </div>
        <div>
          <label for="f-product">Product of that vendor</label>
          <input id="f-product" type="text" name="product" value={f.product ?? ''} placeholder="e.g. windows_10" />
        </div>
        <div>
          <label for="f-status">Status</label>
          <select id="f-status" name="status">
            {STATUSES.map((s) => (
              <option value={s} selected={(f.status ?? 'active') === s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="f-sort">Order</label>
          <select id="f-sort" name="sort">
            {SORTS.map((s) => (
              <option value={s} selected={(f.sort ?? 'published') === s}>
                {SORT_LABELS[s]}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="f-limit">Per page</label>
          <select id="f-limit" name="limit">
            {/* A size asked by hand (?limit=7) is shown as it is, not as the first choice. */}
            {[...new Set(['10', '25', '50', '100', String(Number(f.limit ?? '25'))])]
              .sort((a, b) => Number(a) - Number(b))
              .map((n) => (
                <option value={n} selected={String(Number(f.limit ?? '25')) === n}>
                  {n}
                </option>
              ))}
          </select>
        </div>
        <div>
          <label>
            <input type="checkbox" name="kev_only" value="true" checked={f.kev_only === 'true'} /> Known exploited (KEV) only
          </label>
        </div>
        <div>
          <button type="submit">Apply filters</button>
        </div>
      </form>
      <h2 id="results-h">Results</h2>
      <p id="result-line" role="status">
        {resultLine(view)}
      </p>
      {view.pastEnd ? (
        <p id="past-end">
          {view.last !== null ? (
            <a href={`/pulse/cves${view.last ? `?${view.last}` : ''}`}>Go to the last page{view.lastPageNumber !== null ? ` (page ${count(view.lastPageNumber)})` : ''}</a>
          ) : (
            <a href={`/pulse/cves${view.first ? `?${view.first}` : ''}`}>Go to the first page</a>
          )}
        </p>
      ) : view.cves.length === 0 ? (
        <p>No CVE matches these filters.</p>
      ) : (
        <CveList cves={view.cves} id="results" />
      )}
      <Pager view={view} />
    </Layout>
  );
}
