/**
 * `/pulse/subscribe`: build a filter (with suggestions: server-rendered datalists, refined by
 * /pulse/suggest as you type when JavaScript is on), preview what it would have sent over the
 * last 30 days, then choose channel and cadence and subscribe (double opt-in for e-mail).
 * Both forms are plain HTML forms: the page works without JavaScript.
 */
import { SeverityBadge } from '../components/badges.tsx';
import { advisoryPath, count, cvePath, kindLabel, minute } from '../format.ts';
import { KindsFieldset } from '../components/kinds-fieldset.tsx';
import { Layout } from '../layout.tsx';
import { FILTER_FIELDS, PREVIEW_DAYS, type SubscribeView } from '../load/subscribe.ts';

const SEVERITY_OPTIONS = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;

export interface SubscribeNotice {
  kind: 'ok' | 'error';
  title: string;
  message: string;
  field?: string | undefined;
}

function describeFilter(form: Record<string, string>): string {
  const parts = FILTER_FIELDS.filter((f) => form[f] !== undefined).map((f) => `${f.replace(/_/g, ' ')}: ${form[f]}`);
  return parts.length > 0 ? parts.join('; ') : 'everything (no filter)';
}

function Preview({ view }: { view: SubscribeView }) {
  if (!view.history) return <p id="preview">This snapshot has no change history yet, so there is nothing to preview.</p>;
  const p = view.preview;
  if (p === null) return <p id="preview">Choose a filter and press “Preview” to see what it would have sent.</p>;
  return (
    <div id="preview" data-count={String(p.changes.length)} data-more={String(p.more)}>
      <p role="status">
        {p.changes.length === 0
          ? `Nothing matched since ${minute(p.since)}.`
          : `${p.more ? 'At least ' : ''}${count(p.changes.length)} change${p.changes.length === 1 ? '' : 's'} matched since ${minute(p.since)}${p.more ? ' (the newest shown)' : ''}.`}
      </p>
      {p.changes.length > 0 ? (
        <ul class="cve-list" id="preview-list">
          {p.changes.map((ch) => (
            <li data-change-id={ch.change_id}>
              <div class="line1">
                {ch.cve_id ? (
                  <a class="id" href={cvePath(ch.cve_id)}>
                    {ch.cve_id}
                  </a>
                ) : ch.vendor && ch.advisory_id ? (
                  <a class="id" href={advisoryPath(ch.vendor, ch.advisory_id)}>
                    {ch.advisory_id}
                  </a>
                ) : null}
                <span class="badge sev-NONE">{kindLabel(ch.kind)}</span>
                {ch.service_severity ? <SeverityBadge severity={ch.service_severity} /> : null}
                <span class="muted">{minute(ch.detected_at)}</span>
              </div>
              <p>{ch.why}</p>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function SubscribePage({ view, buildId, notice }: { view: SubscribeView; buildId: string; notice?: SubscribeNotice | undefined }) {
  const f = view.form;
  const kinds = new Set((f.kind ?? '').split(',').filter(Boolean));
  return (
    <Layout title="Subscribe" section="subscribe" buildId={buildId}>
      <h1>Subscribe to changes</h1>
      <p class="lead">
        Pick what concerns you; get an e-mail or a webhook call when it changes — after each build, or as a daily or weekly digest. No account: e-mail
        subscriptions are confirmed by a link, and every message carries its manage link.
      </p>
      {notice ? (
        <div class={notice.kind === 'ok' ? 'ok-box' : 'error-box'} role={notice.kind === 'ok' ? 'status' : 'alert'} id="notice" data-field={notice.field}>
          <h2>{notice.title}</h2>
          <p>{notice.message}</p>
        </div>
      ) : null}
      <section aria-labelledby="filter-h">
        <h2 id="filter-h">1. What to watch</h2>
        <form class="filters" method="get" action="/pulse/subscribe" id="filter-form" aria-label="Filter">
          <div>
            <label for="s-vendor">Vendor (a whole vendor)</label>
            <input id="s-vendor" type="text" name="vendor" value={f.vendor ?? ''} list="dl-vendor" data-suggest="vendor" autocomplete="off" placeholder="e.g. cisco" />
            <datalist id="dl-vendor">
              {view.vendors.map((v) => (
                <option value={v.vendor}>{`${v.name} (${v.cve_count} CVE${v.cve_count === 1 ? '' : 's'})`}</option>
              ))}
            </datalist>
          </div>
          <div>
            <label for="s-product">Product of that vendor</label>
            <input id="s-product" type="text" name="product" value={f.product ?? ''} list="dl-product" data-suggest="product" data-suggest-scope="s-vendor" autocomplete="off" />
            <datalist id="dl-product"></datalist>
          </div>
          <div>
            <label for="s-ecosystem">Ecosystem</label>
            <input id="s-ecosystem" type="text" name="ecosystem" value={f.ecosystem ?? ''} list="dl-ecosystem" data-suggest="ecosystem" autocomplete="off" placeholder="e.g. npm" />
            <datalist id="dl-ecosystem">
              {view.ecosystems.map((e) => (
                <option value={e.ecosystem}>{`${e.ecosystem} (${e.package_count} package${e.package_count === 1 ? '' : 's'})`}</option>
              ))}
            </datalist>
          </div>
          <div>
            <label for="s-package">Package</label>
            <input id="s-package" type="text" name="package" value={f.package ?? ''} list="dl-package" data-suggest="package" data-suggest-scope="s-ecosystem" autocomplete="off" />
            <datalist id="dl-package"></datalist>
          </div>
          <div>
            <label for="s-cwe">Weakness (CWE)</label>
            <input id="s-cwe" type="text" name="cwe" value={f.cwe ?? ''} list="dl-cwe" data-suggest="cwe" autocomplete="off" placeholder="e.g. CWE-79" />
            <datalist id="dl-cwe">
              {view.cwes.map((c) => (
                <option value={c.cwe_id}>{`${c.cwe_id}${c.name ? ` ${c.name}` : ''}`}</option>
              ))}
            </datalist>
          </div>
          <div>
            <label for="s-search">Words</label>
            <input id="s-search" type="text" name="search" value={f.search ?? ''} placeholder="e.g. remote code execution" />
          </div>
          <div>
            <label for="s-min-severity">Lowest severity</label>
            <select id="s-min-severity" name="min_severity">
              <option value="">Any</option>
              {SEVERITY_OPTIONS.map((s) => (
                <option value={s} selected={f.min_severity?.toUpperCase() === s}>
                  {s.toLowerCase()}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="s-min-risk">Lowest risk (0–100)</label>
            <input id="s-min-risk" type="text" inputmode="decimal" name="min_risk" value={f.min_risk ?? ''} />
          </div>
          <div>
            <label>
              <input type="checkbox" name="kev_only" value="true" checked={f.kev_only === 'true'} /> Known exploited (KEV) only
            </label>
          </div>
          <KindsFieldset checked={kinds} />
          <div>
            {/* No checks of the channel's fields (below, in this form too) for a preview. */}
            <button type="submit" class="secondary" name="preview" value="1" formnovalidate>
              Preview
            </button>
          </div>
        </form>
      </section>
      <section aria-labelledby="preview-h">
        <h2 id="preview-h">2. What it would have sent in the last {PREVIEW_DAYS} days</h2>
        <Preview view={view} />
      </section>
      <section aria-labelledby="channel-h">
        <h2 id="channel-h">3. How to be told</h2>
        {/* The channel's fields belong to the filter's form (`form="filter-form"`): Subscribe posts
            the filter as it stands on screen, previewed or not (a separate form posted the last
            previewed one, and a filter typed but not previewed was silently dropped). */}
        <div id="subscribe-form" class="filters" role="group" aria-label="Subscribe">
          <p class="wide" id="filter-summary">
            Subscribes with the filter of step 1 as it stands when you press Subscribe{Object.keys(f).length > 0 ? '; last previewed: ' : '.'}
            {Object.keys(f).length > 0 ? <strong>{describeFilter(f)}</strong> : null}
          </p>
          <fieldset class="wide">
            <legend>Channel</legend>
            <label>
              <input type="radio" name="channel" value="email" form="filter-form" checked /> E-mail
            </label>
            <label>
              <input type="radio" name="channel" value="webhook" form="filter-form" /> Webhook (Slack, Teams or your own endpoint)
            </label>
          </fieldset>
          <div>
            <label for="s-email">E-mail address</label>
            <input id="s-email" type="email" name="email" autocomplete="email" form="filter-form" />
          </div>
          <div>
            <label for="s-url">Webhook URL</label>
            <input id="s-url" type="url" name="url" placeholder="https://hooks.example.com/…" form="filter-form" />
            <p class="hint">Signed with a secret shown once; it must answer a ping with 2xx.</p>
          </div>
          <div>
            <label for="s-cadence">How often</label>
            <select id="s-cadence" name="cadence" form="filter-form">
              <option value="realtime">After each build with matches</option>
              <option value="daily">Daily digest</option>
              <option value="weekly">Weekly digest</option>
            </select>
          </div>
          <div>
            <button type="submit" form="filter-form" formmethod="post" formaction="/pulse/subscribe">
              Subscribe
            </button>
          </div>
        </div>
        <p class="muted">
          Prefer a feed? The same filter as Atom:{' '}
          <a href={`/pulse/feeds/changes.atom${Object.keys(f).length > 0 ? `?${new URLSearchParams(f).toString()}` : ''}`}>changes.atom</a>.
        </p>
      </section>
    </Layout>
  );
}
