/** `/pulse/advisories` and `/pulse/advisories/{vendor}/{id}`: vendor advisories, with or without a CVE. */
import type { AdvisoryDetail } from '../../queries/advisories.ts';
import { VendorExploitedBadge } from '../components/badges.tsx';
import { Breakable } from '../components/breakable.tsx';
import { advisoryPath, counted, cvePath, day, fixed, safeHref } from '../format.ts';
import { Layout } from '../layout.tsx';
import type { AdvisoryListView } from '../load/advisories.ts';

export function AdvisoryListPage({ view, buildId }: { view: AdvisoryListView; buildId: string }) {
  const { page } = view;
  return (
    <Layout title="Vendor advisories" section="advisories" buildId={buildId}>
      <h1>Vendor advisories</h1>
      <p class="lead">Advisories as vendors publish them, newest first — many arrive before a CVE exists.</p>
      <form class="filters" method="get" action="/pulse/advisories" aria-label="Filter advisories">
        <div>
          <label for="a-vendor">Vendor</label>
          <select id="a-vendor" name="vendor">
            <option value="">All vendors</option>
            {view.vendors.map((v) => (
              <option value={v} selected={view.vendor?.toLowerCase() === v.toLowerCase()}>
                {v}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="a-has-cve">CVE</label>
          <select id="a-has-cve" name="has_cve">
            <option value="" selected={view.hasCve === null}>
              With or without
            </option>
            <option value="yes" selected={view.hasCve === 'yes'}>
              Names a CVE
            </option>
            <option value="no" selected={view.hasCve === 'no'}>
              No CVE yet
            </option>
          </select>
        </div>
        <div>
          <button type="submit">Apply filters</button>
        </div>
      </form>
      <p role="status" id="result-line">
        {counted(page.total, 'advisory', 'advisories')}
        {page.advisories.length > 0
          ? `, ${page.offset + 1}–${page.offset + page.advisories.length} shown`
          : page.total > 0
            ? `; none from number ${page.offset + 1} on (past the last page)`
            : ''}
        .
      </p>
      {view.pastEnd !== null ? (
        <p id="past-end">
          <a href={`/pulse/advisories${view.pastEnd ? `?${view.pastEnd}` : ''}`}>{page.total > 0 ? 'Go to the last page' : 'Go to the first page'}</a>
        </p>
      ) : null}
      {page.advisories.length === 0 ? null : (
        <div class="table-wrap">
          <table id="advisories" class="stack">
            <thead>
              <tr>
                <th scope="col">Advisory</th>
                <th scope="col">Published</th>
                <th scope="col">Severity</th>
                <th scope="col">CVEs</th>
              </tr>
            </thead>
            <tbody>
              {page.advisories.map((a) => (
                <tr>
                  <td>
                    <a href={advisoryPath(a.vendor, a.advisory_id)}>
                      {a.vendor} {a.advisory_id}
                    </a>
                    {a.title ? <div class="prose">{a.title}</div> : null}
                  </td>
                  <td class="date" data-label="Published">
                    {day(a.published)}
                  </td>
                  <td data-label="Severity">{a.vendor_severity ?? a.aggregate_severity ?? '—'}</td>
                  <td data-label="CVEs">
                    {a.has_cve ? (
                      <>
                        {a.cve_ids.slice(0, 3).map((id, i) => (
                          <>
                            {i > 0 ? ', ' : ''}
                            {view.knownCves.has(id) ? <a href={cvePath(id)}>{id}</a> : <span class="cve-id">{id}</span>}
                          </>
                        ))}
                        {a.cve_ids.length > 3 ? ` +${a.cve_ids.length - 3}` : ''}
                      </>
                    ) : (
                      <em>none yet</em>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav class="pager" aria-label="Pages">
        {view.prev !== null ? <a href={`/pulse/advisories${view.prev ? `?${view.prev}` : ''}`} rel="prev">← Previous page</a> : <span aria-disabled="true">← Previous page</span>}
        {view.next !== null ? <a href={`/pulse/advisories?${view.next}`} rel="next">Next page →</a> : <span aria-disabled="true">Next page →</span>}
      </nav>
    </Layout>
  );
}

export function AdvisoryPage({ advisory: a, buildId }: { advisory: AdvisoryDetail; buildId: string }) {
  const href = safeHref(a.url);
  return (
    <Layout title={`${a.vendor} ${a.advisory_id}`} section="advisories" buildId={buildId}>
      <h1>
        {a.vendor} {a.advisory_id}
        {a.title ? <span class="muted">: {a.title}</span> : null}
      </h1>
      <p class="headline">
        {a.vendor_severity ? <span class="badge sev-NONE">Vendor severity: {a.vendor_severity}</span> : null}
        {a.exploited ? <VendorExploitedBadge vendor={a.vendor} /> : null}
        {!a.has_cve ? <span class="badge sev-NONE">No CVE yet</span> : null}
      </p>
      <dl class="facts">
        <dt>Published</dt>
        <dd>{day(a.published) || '—'}</dd>
        <dt>Modified</dt>
        <dd>{day(a.modified) || '—'}</dd>
        <dt>Publisher</dt>
        <dd>{a.publisher ?? '—'}</dd>
        <dt>Severity</dt>
        <dd>
          {a.aggregate_severity ?? a.vendor_severity ?? '—'}
          {a.cvss_score !== null ? ` · CVSS ${fixed(a.cvss_score)}` : ''}
          {a.cvss_vector ? (
            <>
              {' '}
              <code>
                <Breakable text={a.cvss_vector} />
              </code>
            </>
          ) : null}
        </dd>
        {a.vendor_severity_evidence ? (
          <>
            <dt>The vendor's words</dt>
            <dd>{a.vendor_severity_evidence}</dd>
          </>
        ) : null}
        <dt>Original</dt>
        <dd>{href ? <a href={href} rel="noopener noreferrer nofollow">{a.url}</a> : a.url ?? '—'}</dd>
      </dl>
      {a.description ? (
        <section aria-labelledby="adesc-h">
          <h2 id="adesc-h">Summary</h2>
          <p class="description">{a.description}</p>
        </section>
      ) : null}
      <section aria-labelledby="acves-h">
        <h2 id="acves-h">CVEs</h2>
        {a.cves.length === 0 ? (
          <p>This advisory names no CVE yet. Subscriptions to {a.vendor} receive it all the same.</p>
        ) : (
          <>
            {/* The advisory's own words on each CVE: a "—" here is the vendor giving no CVSS, not the
                CVE having none (its page has its scores). */}
            <p class="muted" id="advisory-cves-note">
              As {a.vendor} rates each CVE in this advisory; a CVE's page has its own scores.
            </p>
            <div class="table-wrap">
              <table id="advisory-cves" class="stack">
                <thead>
                  <tr>
                    <th scope="col">CVE</th>
                    <th scope="col">Vendor's band</th>
                    <th scope="col">Vendor's CVSS</th>
                    <th scope="col">Exploited</th>
                  </tr>
                </thead>
                <tbody>
                  {a.cves.map((link) => (
                    <tr>
                      <td>{link.api_path ? <a href={cvePath(link.cve_id)}>{link.cve_id}</a> : <span class="cve-id">{link.cve_id}</span>}</td>
                      <td data-label="Vendor's band">{link.vendor_severity ?? '—'}</td>
                      <td data-label="Vendor's CVSS">{link.cvss_score !== null ? fixed(link.cvss_score) : '—'}</td>
                      <td data-label="Exploited">{link.exploited ? `yes${link.exploited_evidence ? ` (${link.exploited_evidence})` : ''}` : 'no'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </section>
      {a.products.length > 0 ? (
        <section aria-labelledby="aprod-h">
          <h2 id="aprod-h">Products</h2>
          <ul>
            {a.products.slice(0, 100).map((p) => (
              <li>{p}</li>
            ))}
          </ul>
          {a.products.length > 100 ? <p class="muted">and {a.products.length - 100} more.</p> : null}
        </section>
      ) : null}
      {a.remediations.length > 0 ? (
        <section aria-labelledby="arem-h">
          <h2 id="arem-h">Remediation</h2>
          <ul>
            {a.remediations.map((r) => (
              <li>
                {r.category ? <strong>{r.category.replace(/_/g, ' ')}: </strong> : null}
                {/* The link says where it leads, as a reference's does: several remediations each linked "link" told a screen reader's list of links nothing (WCAG 2.4.4). */}
                {r.details ?? ''}{' '}
                {safeHref(r.url) ? (
                  <a href={safeHref(r.url)!} rel="noopener noreferrer nofollow">
                    {r.url}
                  </a>
                ) : null}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {a.references.length > 0 ? (
        <section aria-labelledby="aref-h">
          <h2 id="aref-h">References</h2>
          <ul>
            {a.references.map((r) => (
              <li>{safeHref(r.url) ? <a href={safeHref(r.url)!} rel="noopener noreferrer nofollow">{r.summary ?? r.url}</a> : r.summary ?? r.url}</li>
            ))}
          </ul>
        </section>
      ) : null}
      <p class="muted">
        As JSON: <a href={a.api_path}>the advisory</a>.
      </p>
    </Layout>
  );
}
