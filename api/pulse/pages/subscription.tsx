/**
 * The pages a subscription's links lead to (PULSE §4): confirm (a button, never a GET that
 * changes state: mail scanners prefetch links; confirmed, it leads to the manage page), manage (edit the filter and cadence,
 * pause or resume, delete, the last deliveries), unsubscribe, and what creating one answered.
 * Every action is a plain HTML form POST, so all of it works without JavaScript.
 */
import type { ChangeFilter } from '../../../lib/changes/model.ts';
import { deliveryProblem } from '../../../lib/pulse/service.ts';
import { cadenceLabel, kindLabel, minute } from '../format.ts';
import { CadenceField } from '../components/cadence-field.tsx';
import { KindsFieldset, kindsTicked } from '../components/kinds-fieldset.tsx';
import { FilterFields } from '../components/filter-fields.tsx';
import type { FieldProblem } from '../components/field-error.tsx';
import { Breakable } from '../components/breakable.tsx';
import { Layout } from '../layout.tsx';
import type { CreatedHandoff } from '../handoff.ts';
import { fieldLabel } from './subscribe.tsx';

/** The parts of the service's SubscriptionView the pages read. */
export interface SubscriptionPageView {
  channel: string;
  address: string;
  cadence: string;
  filter: ChangeFilter;
  status: string;
  paused_reason: string | null;
  created_at: string;
  confirmed_at: string | null;
  problem: string | null;
  deliveries: {
    period: string;
    status: string;
    changes: number;
    attempts: number;
    first_attempt_at: string;
    last_attempt_at: string;
    sent_at: string | null;
    next_attempt_at: string | null;
    error: string | null;
  }[];
}

export interface PageNotice {
  kind: 'ok' | 'error';
  message: string;
  field?: string | undefined;
  /** A link to show after the message (the manage link, just confirmed). */
  link?: string | undefined;
}

/** `field`: the refused field's anchor and label, for a link naming it (WCAG 2.4.4: "Go to the field" said nothing of which). */
function Notice({ notice, field }: { notice: PageNotice | undefined; field?: { link: string; label: string } | undefined }) {
  if (!notice) return null;
  return (
    <div class={notice.kind === 'ok' ? 'ok-box' : 'error-box'} role={notice.kind === 'ok' ? 'status' : 'alert'} id="notice" data-field={notice.field}>
      <p>{notice.message}</p>
      {notice.link ? (
        <p>
          <a href={notice.link} id="manage-link">
            {notice.link}
          </a>
        </p>
      ) : null}
      {field ? (
        <p>
          <a href={field.link}>Go to {field.label}</a>
        </p>
      ) : null}
    </div>
  );
}

export function filterText(filter: ChangeFilter): string {
  const parts: string[] = [];
  if (filter.vendor) parts.push(`vendor ${filter.vendor}${filter.product ? `, product ${filter.product}` : ''}`);
  else if (filter.product) parts.push(`product ${filter.product}`);
  if (filter.ecosystem) parts.push(`ecosystem ${filter.ecosystem}${filter.package ? `, package ${filter.package}` : ''}`);
  else if (filter.package) parts.push(`package ${filter.package}`);
  if (filter.cwe) parts.push(filter.cwe);
  if (filter.search) parts.push(`words “${filter.search}”`);
  if (filter.min_severity) parts.push(`severity ${filter.min_severity} or higher`);
  if (filter.min_risk !== undefined) parts.push(`risk ${filter.min_risk} or higher`);
  if (filter.kev_only) parts.push('known exploited only');
  if (filter.kinds && filter.kinds.length > 0) parts.push(`changes: ${filter.kinds.map(kindLabel).join(', ')}`);
  return parts.length > 0 ? parts.join('; ') : 'every change';
}

function Facts({ view }: { view: SubscriptionPageView }) {
  return (
    <dl class="facts" id="subscription">
      <dt>Channel</dt>
      <dd>
        {view.channel}: <span id="sub-address">{view.address}</span>
      </dd>
      <dt>How often</dt>
      {/* In the words of the form below ("Daily digest", not the stored "daily"). */}
      <dd id="sub-cadence" data-cadence={view.cadence}>
        {cadenceLabel(view.cadence)}
      </dd>
      <dt>Filter</dt>
      <dd id="sub-filter">{filterText(view.filter)}</dd>
      <dt>Status</dt>
      <dd id="sub-status" data-status={view.status}>
        {view.status}
        {view.paused_reason ? ` (${view.paused_reason})` : ''}
      </dd>
      <dt>Created</dt>
      <dd>{minute(view.created_at)}</dd>
      {view.confirmed_at ? (
        <>
          <dt>Confirmed</dt>
          <dd>{minute(view.confirmed_at)}</dd>
        </>
      ) : null}
    </dl>
  );
}

export function ConfirmPromptPage({ token }: { token: string }) {
  return (
    <Layout title="Confirm your subscription" section="subscribe">
      <h1>Confirm your subscription</h1>
      <p>Press the button to start receiving the alerts you asked for.</p>
      <form method="post" action={`/pulse/confirm/${encodeURIComponent(token)}`}>
        <button type="submit" id="confirm">
          Confirm
        </button>
      </form>
    </Layout>
  );
}

/** The edit form's values as strings, as a form holds them (a refused form: as typed). */
export interface EditValues {
  form: Record<string, string>;
  cadence: string;
}

/** The edit form's values for a subscription as stored. */
export function editValuesOf(view: SubscriptionPageView): EditValues {
  const f = view.filter;
  const form: Record<string, string> = {};
  for (const key of ['vendor', 'product', 'ecosystem', 'package', 'cwe', 'search', 'min_severity'] as const) {
    const value = f[key];
    if (typeof value === 'string' && value !== '') form[key] = value;
  }
  if (f.min_risk !== undefined) form.min_risk = String(f.min_risk);
  if (f.kev_only === true) form.kev_only = 'true';
  if (f.kinds && f.kinds.length > 0) form.kind = f.kinds.join(',');
  return { form, cadence: view.cadence };
}

/** The fields of the edit form a refusal can name. */
const EDIT_FIELDS = new Set(['vendor', 'product', 'ecosystem', 'package', 'cwe', 'search', 'min_severity', 'min_risk', 'kev_only', 'kind', 'cadence']);

function EditForm({ values, action, problem }: { values: EditValues; action: string; problem: FieldProblem | undefined }) {
  const f = values.form;
  const kinds = kindsTicked(f.kind);
  return (
    <form method="post" action={action} class="filters" id="edit-form" aria-label="Edit the subscription">
      <input type="hidden" name="action" value="update" />
      <FilterFields form={f} problem={problem} prefix="m" />
      <CadenceField value={values.cadence} problem={problem} prefix="m" />
      <KindsFieldset checked={kinds} problem={problem} prefix="m" />
      <div>
        <button type="submit">Save changes</button>
      </div>
    </form>
  );
}

/**
 * `edit`: the edit form's values as posted, when they were refused (shown again as typed, the
 * field at fault marked); else the subscription's own.
 */
export function ManagePage({ view, token, notice, edit }: { view: SubscriptionPageView; token: string; notice?: PageNotice | undefined; edit?: EditValues | undefined }) {
  const action = `/pulse/s/${encodeURIComponent(token)}`;
  const paused = view.status === 'paused';
  const problem: FieldProblem | undefined =
    notice?.kind === 'error' && notice.field && EDIT_FIELDS.has(notice.field) ? { field: notice.field, message: notice.message } : undefined;
  // A refused form says so in the title too, as the subscribe page's and the CVE list's do.
  const title = notice?.kind === 'error' ? 'Not changed · Your subscription' : 'Your subscription';
  return (
    <Layout title={title} section="subscribe">
      <h1>Your subscription</h1>
      <Notice
        notice={notice}
        field={problem ? { link: `#m-${problem.field === 'kind' ? 'kinds' : problem.field.replace(/_/g, '-')}`, label: fieldLabel(problem.field) ?? problem.field } : undefined}
      />
      {view.problem ? (
        <div class="error-box" role="alert" id="problem">
          <p>
            {/* The service's problem in the page's words for times (the table's "2026-11-22 08:00 UTC"), not its ISO stamp. */}
            <strong>Delivery problem:</strong> {deliveryProblem(view.deliveries[0], minute) ?? view.problem}
          </p>
        </div>
      ) : null}
      <Facts view={view} />
      <section aria-labelledby="deliveries-h">
        <h2 id="deliveries-h">Last deliveries</h2>
        {view.deliveries.length === 0 ? (
          <p id="deliveries">Nothing delivered yet.</p>
        ) : (
          <div class="table-wrap">
            <table id="deliveries" class="stack">
              <thead>
                <tr>
                  <th scope="col">Period</th>
                  <th scope="col">Outcome</th>
                  <th scope="col" class="num">
                    Changes
                  </th>
                  <th scope="col" class="num">
                    Attempts
                  </th>
                  <th scope="col">Last attempt</th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                {view.deliveries.map((d) => (
                  <tr>
                    <td>
                      <span class="ident">{d.period}</span>
                    </td>
                    <td data-label="Outcome">{d.status}</td>
                    <td class="num" data-label="Changes">
                      {d.changes}
                    </td>
                    <td class="num" data-label="Attempts">
                      {d.attempts}
                    </td>
                    <td class="date" data-label="Last attempt">
                      {minute(d.last_attempt_at)}
                    </td>
                    <td data-label="Error">
                      <Breakable text={d.error ?? '—'} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section aria-labelledby="edit-h">
        <h2 id="edit-h">Change it</h2>
        <EditForm values={edit ?? editValuesOf(view)} action={action} problem={problem} />
      </section>
      <section aria-labelledby="stop-h">
        <h2 id="stop-h">Pause or stop it</h2>
        <div class="headline">
          <form method="post" action={action}>
            <input type="hidden" name="action" value={paused ? 'resume' : 'pause'} />
            <button type="submit" class="secondary" id={paused ? 'resume' : 'pause'}>
              {paused ? 'Resume' : 'Pause'}
            </button>
          </form>
          <form method="post" action={`${action}/unsubscribe`}>
            <input type="hidden" name="from" value="page" />
            <button type="submit" class="danger" id="delete">
              Delete (unsubscribe)
            </button>
          </form>
        </div>
      </section>
    </Layout>
  );
}

export function UnsubscribePromptPage({ token }: { token: string }) {
  return (
    <Layout title="Unsubscribe" section="subscribe">
      <h1>Unsubscribe</h1>
      <p>Press the button to delete this subscription. Nothing more will be sent.</p>
      <form method="post" action={`/pulse/s/${encodeURIComponent(token)}/unsubscribe`}>
        <input type="hidden" name="from" value="page" />
        <button type="submit" class="danger" id="unsubscribe">
          Unsubscribe
        </button>
      </form>
    </Layout>
  );
}

export function UnsubscribedPage({ existed }: { existed: boolean }) {
  return (
    <Layout title="Unsubscribed" section="subscribe">
      <h1>Unsubscribed</h1>
      <div class="ok-box" role="status" id="unsubscribed">
        <p>{existed ? 'The subscription is deleted. Nothing more will be sent.' : 'There is no subscription for this link (any more): nothing will be sent.'}</p>
      </div>
      <p>
        <a href="/pulse/subscribe">Subscribe again</a>
      </p>
    </Layout>
  );
}

export function LinkNotFoundPage({ message, title = 'Link not found' }: { message: string; title?: string }) {
  return (
    <Layout title={title} section="subscribe">
      <h1>{title}</h1>
      <div class="error-box" role="alert" data-status="404">
        <p>{message}</p>
      </div>
      <p>
        <a href="/pulse/subscribe">Subscribe</a>
      </p>
    </Layout>
  );
}

/**
 * What creating a subscription answered, on the GET page its POST was redirected to: where the
 * confirmation mail went; or a webhook's secret and manage link, shown this once
 * (`shownAlready`: the page's reload, which has them no more).
 */
export function SubscribedPage({ created, shownAlready = false }: { created?: CreatedHandoff; shownAlready?: boolean }) {
  if (shownAlready || !created) {
    return (
      <Layout title="Webhook subscribed" section="subscribe">
        <h1>Webhook subscribed</h1>
        <div class="ok-box" role="status" id="created" data-shown-already="true">
          <p>
            The webhook is subscribed. Its signing secret and manage link were shown once, when this page first opened, and are not kept to be shown again.
            If you did not keep them, subscribe again; to stop the first subscription's deliveries, have your endpoint answer them with 410 Gone (that pauses
            it).
          </p>
        </div>
        <p>
          <a href="/pulse/subscribe">Subscribe to something else</a>
        </p>
      </Layout>
    );
  }
  return (
    <Layout title="Subscribed" section="subscribe">
      <h1>{created.confirmation ? 'Check your mail' : 'Webhook subscribed'}</h1>
      {created.confirmation ? (
        <div class="ok-box" role="status" id="created">
          <p>
            A confirmation link went to <strong>{created.confirmation.sent_to}</strong>. Open it before {minute(created.confirmation.expires_at)} to start the
            alerts; an unconfirmed subscription is deleted after 7 days.
          </p>
        </div>
      ) : (
        <div class="ok-box" role="status" id="created">
          <p>Your endpoint answered the ping. Every delivery is signed with this secret — it is shown only once (a reload of this page shows it no more), keep it now:</p>
          <p>
            <code id="secret">{created.secret ?? ''}</code>
          </p>
          {created.manage_url ? (
            <p>
              Manage it here (shown only once too): <a href={created.manage_url} id="manage-link">{created.manage_url}</a>
            </p>
          ) : null}
        </div>
      )}
    </Layout>
  );
}
