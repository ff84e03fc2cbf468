/** `/pulse/cves/{id}`: everything about one CVE, explained. */
import type { RelatedEntry } from '../../queries/related.ts';
import { KevBadge, SeverityBadge } from '../components/badges.tsx';
import { decodeVector } from '../components/cvss.ts';
import { AffectedPackages } from '../components/affected-packages.tsx';
import { Breakable } from '../components/breakable.tsx';
import { ChangeHistory } from '../components/history.tsx';
import { ScoreBreakdown } from '../components/score-breakdown.tsx';
import { advisoryPath, cvePath, day, fixed, percent, safeHref } from '../format.ts';
import { Layout } from '../layout.tsx';
import type { CvePageData } from '../load/cve.ts';

function Link({ url, children }: { url: string | null | undefined; children?: unknown }) {
  const href = safeHref(url);
  const text = (children as string | undefined) ?? url ?? '';
  return href ? <a href={href} rel="noopener noreferrer nofollow">{text}</a> : <span class="mono">{text}</span>;
}

function Vector({ label, score, vector, severity }: { label: string; score: number; vector: string | null; severity?: string | null }) {
  if (!vector) return null;
  const decoded = decodeVector(vector);
  return (
    <div class="panel" data-vector={vector}>
      <h3>
        {label}: {fixed(score)} {severity ? <SeverityBadge severity={severity} /> : null}
      </h3>
      <p>
        {/* Broken after its slashes on a phone, never inside a metric ("…/I" over ":H/A:H"). */}
        <code>
          <Breakable text={vector} />
        </code>
      </p>
      {decoded ? (
        <dl class="facts">
          {decoded.metrics.map((m) => (
            <>
              <dt>{m.metric}</dt>
              <dd title={m.description}>{m.value}</dd>
            </>
          ))}
        </dl>
      ) : (
        <p class="muted">This vector could not be decoded.</p>
      )}
    </div>
  );
}

function RelatedList({ title, entries, id }: { title: string; entries: RelatedEntry[]; id: string }) {
  return (
    <div>
      <h3>{title}</h3>
      {entries.length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <ul id={id}>
          {entries.map((e) => (
            <li>
              <a href={cvePath(e.cve_id)}>{e.cve_id}</a> <SeverityBadge severity={e.service_severity} />{' '}
              <span class="muted">shares {e.shared_keys.slice(0, 3).join(', ')}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function CvePage({ data, buildId }: { data: CvePageData; buildId: string }) {
  const r = data.record;
  const e = data.enrichment;
  const refs = data.references;
  return (
    <Layout title={r.cve_id} section="cves" buildId={buildId}>
      <h1>
        {r.cve_id}
        {r.title ? <span class="muted">: {r.title}</span> : null}
      </h1>
      <p class="headline">
        <SeverityBadge severity={r.service_severity} />
        {r.kev ? <KevBadge /> : null}
        {r.status === 'rejected' ? <span class="badge sev-NONE">REJECTED</span> : null}
        {r.service_ssvc_decision ? <span class="badge sev-NONE">SSVC: {r.service_ssvc_decision}</span> : null}
        {r.score_confidence ? <span class="muted">Confidence {r.score_confidence.toLowerCase()}</span> : null}
      </p>
      <section aria-labelledby="desc-h">
        <h2 id="desc-h">Description</h2>
        <p class="description" id="description">
          {r.description ?? 'No description on record.'}
        </p>
        <dl class="facts">
          <dt>Published</dt>
          <dd>{day(r.published) || '—'}</dd>
          <dt>Last modified</dt>
          <dd>{day(r.last_modified) || '—'}</dd>
          <dt>Assigner</dt>
          <dd>{r.assigner ?? '—'}</dd>
          <dt>NVD status</dt>
          <dd>{r.vuln_status ?? '—'}</dd>
          <dt>Weaknesses</dt>
          <dd>
            {e && e.cwes.length > 0
              ? e.cwes.map((c, i) => (
                  <>
                    {i > 0 ? ', ' : ''}
                    {c.cwe_id}
                    {c.name ? ` (${c.name})` : ''}
                  </>
                ))
              : r.cwe_ids.join(', ') || '—'}
          </dd>
          {r.vendor_severity ? (
            <>
              <dt>Vendor's severity</dt>
              <dd>
                {r.vendor_severity} <span class="muted">({r.vendor_severity_source})</span>
              </dd>
            </>
          ) : null}
        </dl>
      </section>

      <section aria-labelledby="score-section-h">
        <h2 id="score-section-h">Score and risk, explained</h2>
        <ScoreBreakdown
          serviceScore={r.service_score}
          serviceRisk={r.service_risk}
          assessed={r.score_assessed}
          unassessedReason={r.score_unassessed_reason ?? null}
          factors={r.score_factors}
        />
        <p class="muted">Sources: {(r.score_factors.sources_contributing ?? []).join(', ') || 'none'}.</p>
      </section>

      <section aria-labelledby="cvss-h">
        <h2 id="cvss-h">CVSS vectors in words</h2>
        {!r.cvss_v3_vector && !r.cvss_v4_vector && !r.cvss_v2_vector ? <p>No CVSS vector on record.</p> : null}
        <div class="grid">
          <Vector label={`CVSS v${r.cvss_v3_version ?? '3'}${r.cvss_v3_source ? ` (${r.cvss_v3_source})` : ''}`} score={r.cvss_v3_score} vector={r.cvss_v3_vector} severity={r.severity} />
          <Vector label="CVSS v4.0" score={r.cvss_v4_score} vector={r.cvss_v4_vector} severity={r.cvss_v4_severity} />
          <Vector label="CVSS v2.0" score={r.cvss_v2_score} vector={r.cvss_v2_vector} severity={r.cvss_v2_severity} />
        </div>
      </section>

      <section aria-labelledby="exploit-h">
        <h2 id="exploit-h">Exploitation</h2>
        <div class="grid">
          <div class="panel" id="kev">
            <h3>CISA KEV</h3>
            {r.kev ? (
              <dl class="facts">
                <dt>Added</dt>
                <dd>{r.kev_added_date}</dd>
                <dt>Due</dt>
                <dd>{r.kev_due_date ?? '—'}</dd>
                <dt>Ransomware use</dt>
                <dd>{r.kev_known_ransomware_campaign_use ?? '—'}</dd>
                <dt>Required action</dt>
                <dd>{r.kev_required_action ?? '—'}</dd>
              </dl>
            ) : (
              <p>Not listed.{r.svc_kev ? ' Known exploited by other evidence (CISA ADP or a vendor advisory).' : ''}</p>
            )}
          </div>
          <div class="panel" id="epss">
            <h3>EPSS</h3>
            {r.epss_score !== null ? (
              <p>
                {percent(r.epss_score)} probability of exploitation in the next 30 days (percentile {percent(r.epss_percentile)}), scored {r.epss_date}.
              </p>
            ) : (
              <p>No EPSS score.</p>
            )}
          </div>
        </div>
        <h3>Public exploits</h3>
        {e && e.exploits.length > 0 ? (
          <ul id="exploits">
            {e.exploits.map((x) => (
              <li>
                <Link url={x.url}>{x.title ?? x.exploit_id ?? x.url ?? x.source}</Link> <span class="muted">
                  ({x.source}
                  {x.published ? (
                    <>
                      , <span class="date">{day(x.published)}</span>
                    </>
                  ) : null}
                  )
                </span>
              </li>
            ))}
          </ul>
        ) : (
          <p>None known.</p>
        )}
      </section>

      <section aria-labelledby="adv-h">
        <h2 id="adv-h">Vendor advisories</h2>
        {e && e.vendor_advisories.length > 0 ? (
          <ul id="vendor-advisories">
            {e.vendor_advisories.map((a) => (
              <li>
                <a href={advisoryPath(a.vendor, a.advisory_id)}>
                  {a.vendor} {a.advisory_id}
                </a>
                {a.title ? `: ${a.title}` : ''} {a.vendor_severity ? <span class="muted">({a.vendor_severity})</span> : null}
                {a.exploited ? <strong> exploited</strong> : null}
              </li>
            ))}
          </ul>
        ) : (
          <p>None linked.</p>
        )}
      </section>

      <section aria-labelledby="pkg-h">
        <h2 id="pkg-h">Affected packages and fixes</h2>
        {e && e.affected_packages.length > 0 ? (
          <AffectedPackages packages={e.affected_packages} />
        ) : (
          <p>No package named.</p>
        )}
      </section>

      <section aria-labelledby="related-h">
        <h2 id="related-h">Related CVEs</h2>
        {data.related ? (
          <div class="grid">
            <RelatedList title="Same product" entries={data.related.same_product} id="related-product" />
            <RelatedList title="Same vendor advisory" entries={data.related.same_vendor} id="related-vendor" />
            <RelatedList title="Same weakness" entries={data.related.same_cwe} id="related-cwe" />
          </div>
        ) : (
          <p>None.</p>
        )}
      </section>

      <section aria-labelledby="refs-h">
        <h2 id="refs-h">References</h2>
        {refs && refs.references.length > 0 ? (
          <ul id="references">
            {refs.references.map((ref) => (
              <li>
                <Link url={ref.url}>{ref.name && ref.name !== ref.url ? ref.name : ref.url}</Link>
                {ref.tags.length > 0 ? <span class="muted"> ({ref.tags.join(', ')})</span> : null}
              </li>
            ))}
          </ul>
        ) : (
          <p>None.</p>
        )}
      </section>

      <section aria-labelledby="history-h">
        <h2 id="history-h">Change history</h2>
        <ChangeHistory history={data.history} id="history" />
      </section>
      <p class="muted">
        As JSON: <a href={`/api/v1/public/cves/${r.cve_id}`}>the record</a>, <a href={`/api/v1/public/cves/${r.cve_id}/enrichment`}>its enrichment</a>.
      </p>
    </Layout>
  );
}
