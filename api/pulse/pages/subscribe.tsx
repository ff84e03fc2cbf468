/**
 * `/pulse/subscribe`: build a filter (with suggestions: server-rendered datalists, refined by
 * /pulse/suggest as you type when JavaScript is on), preview what it would have sent over the
 * last 30 days, then choose channel and cadence and subscribe (double opt-in for e-mail).
 *
 * One plain HTML form, posted (the page works without JavaScript): Preview and Subscribe are
 * its two buttons. The channel's fields (an e-mail address; a webhook URL, which for Slack is its
 * own secret) are never sent in a URL: Preview posts them and is redirected to the preview's GET
 * page, which gets them back from a short-lived server-side draft (api/pulse/handoff.ts) named
 * by an opaque id — they survive the preview, and stay out of the address bar, the history and
 * shared caches. A refused form comes back with every value as typed and the field at fault
 * marked (aria-invalid, its message beside it, focus on it).
 */
import { SeverityBadge } from '../components/badges.tsx';
import { advisoryPath, count, cvePath, kindLabel, minute } from '../format.ts';
import { CadenceField } from '../components/cadence-field.tsx';
import { KindsFieldset, kindsTicked } from '../components/kinds-fieldset.tsx';
import { FilterFields } from '../components/filter-fields.tsx';
import { FieldMessage, invalidAttrs, type FieldProblem } from '../components/field-error.tsx';
import { Layout } from '../layout.tsx';
import { FILTER_FIELDS, isFilterField, PREVIEW_DAYS, type SubscribeView } from '../load/subscribe.ts';

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
  if (!view.history) {
    return (
      <p id="preview">
        This snapshot carries no change history yet: the first build of a data folder records no changes, so there is nothing to preview. The next build's
        changes will be.
      </p>
    );
  }
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
                <span class="muted date">{minute(ch.detected_at)}</span>
              </div>
              <p>{ch.why}</p>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** The channel's fields as typed (a refused form, a draft kept across a preview). */
export interface ChannelValues {
  channel: string;
  email: string;
  url: string;
  cadence: string;
}

export const DEFAULT_CHANNEL: ChannelValues = { channel: 'email', email: '', url: '', cadence: 'realtime' };

/** The input each field's problem is shown at, and its name in the error summary. */
const FIELDS: Record<string, { id: string; label: string }> = {
  vendor: { id: 's-vendor', label: 'Vendor' },
  product: { id: 's-product', label: 'Product' },
  ecosystem: { id: 's-ecosystem', label: 'Ecosystem' },
  package: { id: 's-package', label: 'Package' },
  cwe: { id: 's-cwe', label: 'Weakness (CWE)' },
  search: { id: 's-search', label: 'Words' },
  min_severity: { id: 's-min-severity', label: 'Lowest severity' },
  min_risk: { id: 's-min-risk', label: 'Lowest risk' },
  kev_only: { id: 's-kev-only', label: 'Known exploited only' },
  kind: { id: 's-kinds', label: 'Kinds of change' },
  channel: { id: 's-channel-email', label: 'Channel' },
  email: { id: 's-email', label: 'E-mail address' },
  url: { id: 's-url', label: 'Webhook URL' },
  cadence: { id: 's-cadence', label: 'How often' },
};

/** A field's name as its label reads, for a refusal's "Go to …" link (the manage page's form has the same fields). */
export function fieldLabel(field: string): string | undefined {
  return FIELDS[field]?.label;
}

export interface SubscribePageProps {
  view: SubscribeView;
  buildId: string;
  notice?: SubscribeNotice | undefined;
  /** The channel's fields to show (a draft, a refused form); default: e-mail, realtime, empty. */
  channel?: ChannelValues | undefined;
  /** False without a subscription service: the form only previews (a GET), and says why. */
  canSubscribe?: boolean;
  /**
   * False when the server sends no e-mail (no SMTP server given): the form offers the webhook
   * channel only, and says why, instead of an e-mail choice the service can only refuse.
   */
  canEmail?: boolean;
}

export function SubscribePage({ view, buildId, notice, channel = DEFAULT_CHANNEL, canSubscribe = true, canEmail = true }: SubscribePageProps) {
  const f = view.form;
  const kinds = kindsTicked(f.kind);
  const problem: FieldProblem | undefined = notice?.kind === 'error' && notice.field && FIELDS[notice.field] ? { field: notice.field, message: notice.message } : undefined;
  const bad = (field: string) => invalidAttrs(problem, 's', field);
  const message = (field: string) => <FieldMessage problem={problem} prefix="s" field={field} />;
  // A refused filter was not previewed: neither said to be nor offered as a feed (the feed
  // refuses it as the form did; its link answered a JSON 400).
  const filterRefused = isFilterField(problem?.field);
  const previewed: Record<string, string> = filterRefused ? {} : f;
  const webhook = channel.channel === 'webhook' || !canEmail;
  // "Go to the field": the channel's first choice shown.
  const fieldId = (field: string) => (field === 'channel' && !canEmail ? 's-channel-webhook' : FIELDS[field]!.id);
  // A refusal in the title too, as the CVE list's ("A filter is not valid · CVEs"): the first
  // thing a screen reader reads of the page the form was answered with.
  const title = notice?.kind === 'error' ? `${notice.title} · Subscribe` : 'Subscribe';
  return (
    <Layout title={title} section="subscribe" buildId={buildId}>
      <h1>Subscribe to changes</h1>
      <p class="lead">
        {canEmail
          ? 'Pick what concerns you; get an e-mail or a webhook call when it changes — after each build, or as a daily or weekly digest. No account: e-mail subscriptions are confirmed by a link, and every message carries its manage link.'
          : 'Pick what concerns you; get a webhook call when it changes — after each build, or as a daily or weekly digest. No account: every call carries its manage link.'}
      </p>
      {notice ? (
        <div class={notice.kind === 'ok' ? 'ok-box' : 'error-box'} role={notice.kind === 'ok' ? 'status' : 'alert'} id="notice" data-field={notice.field}>
          <h2>{notice.title}</h2>
          <p>{notice.message}</p>
          {problem ? (
            <p>
              <a href={`#${fieldId(problem.field)}`}>Go to {FIELDS[problem.field]!.label}</a>
            </p>
          ) : null}
        </div>
      ) : null}
      {/* One form: Preview and Subscribe post the filter as it stands on screen. Without a
          subscription service the form previews by GET (no channel to post). */}
      <form method={canSubscribe ? 'post' : 'get'} action="/pulse/subscribe" id="subscribe-form" aria-label="Subscribe">
        {canSubscribe ? (
          // Enter in a field submits with the form's first submit button, which was Preview (in
          // step 1, before the channel's fields): Enter in the e-mail address previewed. This
          // button comes first for Enter alone, with or without JavaScript (`intent=enter`: it
          // subscribes once the channel's address is typed, and previews the filter before, as
          // someone still choosing it means); out of sight, out of the Tab order and of the
          // accessibility tree: the buttons seen and announced are the two below. Drawn (not
          // display:none): WebKit skips an undrawn default button and would submit with the
          // next, Preview, again.
          <button type="submit" name="intent" value="enter" class="enter-default" tabindex={-1} aria-hidden="true">
            Subscribe
          </button>
        ) : null}
        <section aria-labelledby="filter-h">
          <h2 id="filter-h">1. What to watch</h2>
          <div class="filters" id="filter-fields">
            <FilterFields form={f} problem={problem} prefix="s" suggestions={view} />
            <KindsFieldset checked={kinds} problem={problem} prefix="s" />
            <div>
              {canSubscribe ? (
                // No checks of the channel's fields for a preview.
                <button type="submit" class="secondary" name="intent" value="preview" formnovalidate>
                  Preview
                </button>
              ) : (
                <button type="submit" class="secondary" name="preview" value="1">
                  Preview
                </button>
              )}
            </div>
          </div>
        </section>
        <section aria-labelledby="preview-h">
          <h2 id="preview-h">2. What it would have sent in the last {PREVIEW_DAYS} days</h2>
          <Preview view={view} />
        </section>
        <section aria-labelledby="channel-h">
          <h2 id="channel-h">3. How to be told</h2>
          {canSubscribe ? (
            <div id="channel-fields" class="filters">
              <p class="wide" id="filter-summary">
                Subscribes with the filter of step 1 as it stands when you press Subscribe{Object.keys(previewed).length > 0 ? '; last previewed: ' : '.'}
                {Object.keys(previewed).length > 0 ? <strong>{describeFilter(previewed)}</strong> : null}
              </p>
              <fieldset class="wide" aria-describedby={problem?.field === 'channel' ? 's-channel-error' : undefined}>
                <legend>Channel</legend>
                {canEmail ? (
                  <label>
                    <input id="s-channel-email" type="radio" name="channel" value="email" checked={!webhook} {...bad('channel')} /> E-mail
                  </label>
                ) : null}
                <label>
                  <input id="s-channel-webhook" type="radio" name="channel" value="webhook" checked={webhook} aria-invalid={bad('channel')['aria-invalid']} /> Webhook (Slack, Teams or your own endpoint)
                </label>
                {canEmail ? null : <p class="hint" id="s-no-email">This server sends no e-mail (it is run without a mail server): subscriptions call a webhook.</p>}
                {message('channel')}
              </fieldset>
              {canEmail ? (
                <div>
                  <label for="s-email">E-mail address</label>
                  {message('email')}
                  <input id="s-email" type="email" name="email" autocomplete="email" value={channel.email} {...bad('email')} />
                </div>
              ) : null}
              <div>
                <label for="s-url">Webhook URL</label>
                {message('url')}
                <input id="s-url" type="url" name="url" placeholder="https://hooks.example.com/…" value={channel.url} {...bad('url')} />
                <p class="hint">Signed with a secret shown once; it must answer a ping with 2xx.</p>
              </div>
              <CadenceField value={channel.cadence} problem={problem} prefix="s" hint />
              <div>
                <button type="submit" name="intent" value="subscribe">
                  Subscribe
                </button>
              </div>
            </div>
          ) : (
            <p id="channel-fields">Subscriptions are not enabled on this server (it serves no subscription store). The Atom feed below carries the same filter.</p>
          )}
        </section>
      </form>
      {/* The feed's filter is the one the page was drawn with (the last previewed), not what is
          typed since: said so, and with none, that the link is every change (it said "the same
          filter" of a form typed but not previewed, and led to every change). */}
      <p class="muted" id="feed-offer">
        {Object.keys(previewed).length > 0 ? (
          <>
            Prefer a feed? The filter last previewed, as Atom:{' '}
            <a href={`/pulse/feeds/changes.atom?${new URLSearchParams(previewed).toString()}`} id="feed-link">
              changes.atom
            </a>
            .
          </>
        ) : (
          <>
            Prefer a feed? Every change, as Atom:{' '}
            <a href="/pulse/feeds/changes.atom" id="feed-link">
              changes.atom
            </a>
            ; preview a filter to have its own feed linked here.
          </>
        )}
      </p>
    </Layout>
  );
}
