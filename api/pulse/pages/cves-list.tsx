/** `/pulse/cves`: the filter form (a plain GET form, works without JavaScript) and a page of CVEs. */
import { SEVERITIES, STATUSES } from '../../queries/cves-filter.ts';
import { SORTS } from '../../queries/cves-list.ts';
import { CveList } from '../components/cve-list.tsx';
import { FieldMessage, invalidAttrs, problemId, type FieldProblem } from '../components/field-error.tsx';
import { count, counted } from '../format.ts';
import { Layout } from '../layout.tsx';
import type { CveListView, FORM_FIELDS } from '../load/cves-list.ts';

const SORT_LABELS: Record<(typeof SORTS)[number], string> = {
  published: 'Newest published',
  epss: 'EPSS probability',
  severity: 'Service score',
  cvss_v3_score: 'CVSS v3 score',
};

/** Each field of the form: the element a refusal's "Go to" link leads to, and its label. */
const FIELDS: Record<(typeof FORM_FIELDS)[number], { id: string; label: string }> = {
  search: { id: 'f-search', label: 'Search' },
  severity: { id: 'f-severity', label: 'Severity' },
  severity_basis: { id: 'f-basis', label: 'Severity of' },
  min_cvss: { id: 'f-min-cvss', label: 'Lowest CVSS' },
  year: { id: 'f-year', label: 'Year published' },
  since: { id: 'f-since', label: 'Modified since' },
  until: { id: 'f-until', label: 'Modified before' },
  vendor: { id: 'f-vendor', label: 'Vendor' },
  product: { id: 'f-product', label: 'Product of that vendor' },
  status: { id: 'f-status', label: 'Status' },
  sort: { id: 'f-sort', label: 'Order' },
  limit: { id: 'f-limit', label: 'Per page' },
  kev_only: { id: 'f-kev-only', label: 'Known exploited (KEV) only' },
};

/** The page size the Per page box shows: the number asked (`010` is 10), else what was typed. */
function limitShown(raw: string | undefined): string {
  if (raw === undefined) return '25';
  const n = Number(raw);
  return Number.isNaN(n) ? raw : String(n);
}

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

export interface CveListPageProps {
  view: CveListView;
  buildId: string;
  /**
   * A filter of the form refused (a 400): the form comes back as typed with that field marked
   * where it is (its message beside it, focus on it), named by its label at the top, and no
   * results — it was a page naming the parameter ("min_cvss") with no form to correct it in.
   */
  problem?: (FieldProblem & { field: (typeof FORM_FIELDS)[number] }) | undefined;
  /** With `problem`: this page without the refused filter, the others kept. */
  withoutProblem?: string | undefined;
}

export function CveListPage({ view, buildId, problem, withoutProblem }: CveListPageProps) {
  const f = view.form;
  const bad = (field: string) => invalidAttrs(problem, 'f', field);
  const message = (field: string) => <FieldMessage problem={problem} prefix="f" field={field} />;
  const severityInvalid = bad('severity');
  return (
    <Layout title={problem ? 'A filter is not valid · CVEs' : 'CVEs'} section="cves" buildId={buildId}>
      <h1>Browse and search CVEs</h1>
      {problem ? (
        <div class="error-box" role="alert" id="notice" data-status="400" data-parameter={problem.field}>
          <h2>A filter is not valid: {FIELDS[problem.field].label}</h2>
          <p>{problem.message}</p>
          <p>
            <a href={`#${FIELDS[problem.field].id}`}>Go to {FIELDS[problem.field].label}</a>
            {withoutProblem ? (
              <>
                {' '}
                or{' '}
                <a href={withoutProblem} id="without-parameter">
                  show the results without it
                </a>
              </>
            ) : null}
            .
          </p>
        </div>
      ) : null}
      <form class="filters" method="get" action="/pulse/cves" role="search" aria-label="Filter CVEs">
        <div class="wide">
          <label for="f-search">Search</label>
          {message('search')}
          <input id="f-search" type="search" name="search" value={f.search ?? ''} placeholder='e.g. linux kernel "use after free"' {...bad('search')} />
        </div>
        <fieldset class="wide" id="f-severity" aria-describedby={severityInvalid['aria-describedby'] ? problemId('f', 'severity') : undefined}>
          <legend>Severity</legend>
          {SEVERITIES.map((s, i) => (
            <label>
              <input
                type="checkbox"
                name="severity"
                value={s}
                checked={view.severities.includes(s)}
                aria-invalid={severityInvalid['aria-invalid']}
                autofocus={i === 0 && severityInvalid.autofocus === true}
              />{' '}
              {s.toLowerCase()}
            </label>
          ))}
          {message('severity')}
        </fieldset>
        <div>
          <label for="f-basis">Severity of</label>
          {message('severity_basis')}
          <select id="f-basis" name="severity_basis" {...bad('severity_basis')}>
            <option value="nvd" selected={view.choices.severityBasis === 'nvd'}>
              NVD's CVSS v3 label
            </option>
            <option value="svc" selected={view.choices.severityBasis === 'svc'}>
              the service score
            </option>
          </select>
        </div>
        <div>
          <label for="f-min-cvss">Lowest CVSS</label>
          {message('min_cvss')}
          <input id="f-min-cvss" type="text" inputmode="decimal" name="min_cvss" value={f.min_cvss ?? ''} placeholder="0–10" {...bad('min_cvss')} />
        </div>
        <div>
          <label for="f-year">Year published</label>
          {message('year')}
          <input id="f-year" type="text" inputmode="numeric" name="year" value={f.year ?? ''} placeholder="e.g. 2024" {...bad('year')} />
        </div>
        <div>
          <label for="f-since">Modified since</label>
          {message('since')}
          <input id="f-since" type="text" name="since" value={f.since ?? ''} placeholder="YYYY-MM-DD" {...bad('since')} />
        </div>
        <div>
          <label for="f-until">Modified before</label>
          {message('until')}
          <input id="f-until" type="text" name="until" value={f.until ?? ''} placeholder="YYYY-MM-DD" {...bad('until')} />
        </div>
        <div>
          <label for="f-vendor">Vendor</label>
          {message('vendor')}
          <input id="f-vendor" type="text" name="vendor" value={f.vendor ?? ''} placeholder="e.g. microsoft" {...bad('vendor')} />
        </div>
        <div>
          <label for="f-product">Product of that vendor</label>
          {message('product')}
          <input id="f-product" type="text" name="product" value={f.product ?? ''} placeholder="e.g. windows_10" {...bad('product')} />
        </div>
        <div>
          <label for="f-status">Status</label>
          {message('status')}
          <select id="f-status" name="status" {...bad('status')}>
            {STATUSES.map((s) => (
              <option value={s} selected={view.choices.status === s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="f-sort">Order</label>
          {message('sort')}
          <select id="f-sort" name="sort" {...bad('sort')}>
            {SORTS.map((s) => (
              <option value={s} selected={view.choices.sort === s}>
                {SORT_LABELS[s]}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="f-limit">Per page</label>
          {message('limit')}
          <select id="f-limit" name="limit" {...bad('limit')}>
            {/* A size asked by hand (?limit=7) is shown as it is, not as the first choice; one that
                is no number at all (a refused ?limit=abc) as typed, last (it read "NaN"). */}
            {[...new Set(['10', '25', '50', '100', limitShown(f.limit)])]
              .sort((a, b) => (Number.isNaN(Number(a)) ? 1 : Number.isNaN(Number(b)) ? -1 : Number(a) - Number(b)))
              .map((n) => (
                <option value={n} selected={limitShown(f.limit) === n}>
                  {n}
                </option>
              ))}
          </select>
        </div>
        <div>
          <label>
            <input id="f-kev-only" type="checkbox" name="kev_only" value="true" checked={view.choices.kevOnly} {...bad('kev_only')} /> Known exploited (KEV) only
          </label>
          {message('kev_only')}
        </div>
        <div>
          <button type="submit">Apply filters</button>
        </div>
      </form>
      <h2 id="results-h">Results</h2>
      {problem ? (
        <p id="result-line">None until the filter is corrected.</p>
      ) : (
        <p id="result-line" role="status">
          {resultLine(view)}
        </p>
      )}
      {problem ? null : view.pastEnd ? (
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
      {problem ? null : <Pager view={view} />}
    </Layout>
  );
}
