/**
 * The pages a subscription's links lead to (PULSE §4): confirm (a button, never a GET that
 * changes state: mail scanners prefetch links), confirmed, manage (edit the filter and cadence,
 * pause or resume, delete, the last deliveries), unsubscribe, and what creating one answered.
 * Every action is a plain HTML form POST, so all of it works without JavaScript.
 */
import type { ChangeFilter } from '../../../lib/changes/model.ts';
import { kindLabel, minute } from '../format.ts';
import { KindsFieldset } from '../components/kinds-fieldset.tsx';
import { Breakable } from '../components/breakable.tsx';
import { Layout } from '../layout.tsx';

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
}

function Notice({ notice }: { notice: PageNotice | undefined }) {
  if (!notice) return null;
  return (
    <div class={notice.kind === 'ok' ? 'ok-box' : 'error-box'} role={notice.kind === 'ok' ? 'status' : 'alert'} id="notice" data-field={notice.field}>
      <p>{notice.message}</p>
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
      <dd id="sub-cadence">{view.cadence}</dd>
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

export function ConfirmedPage({ view, manageUrl }: { view: SubscriptionPageView; manageUrl: string }) {
  return (
    <Layout title="Subscription confirmed" section="subscribe">
      <h1>Subscription confirmed</h1>
      <div class="ok-box" role="status">
        <p>Alerts will arrive as you asked. Keep this link to change, pause or delete the subscription (every alert carries it too):</p>
        <p>
          <a href={manageUrl} id="manage-link">
            {manageUrl}
          </a>
        </p>
      </div>
      <Facts view={view} />
    </Layout>
  );
}

function EditForm({ view, action }: { view: SubscriptionPageView; action: string }) {
  const f = view.filter;
  const kinds = new Set(f.kinds ?? []);
  return (
    <form method="post" action={action} class="filters" id="edit-form" aria-label="Edit the subscription">
      <input type="hidden" name="action" value="update" />
      <div>
        <label for="m-vendor">Vendor</label>
        <input id="m-vendor" type="text" name="vendor" value={f.vendor ?? ''} />
      </div>
      <div>
        <label for="m-product">Product</label>
        <input id="m-product" type="text" name="product" value={f.product ?? ''} />
      </div>
      <div>
        <label for="m-ecosystem">Ecosystem</label>
        <input id="m-ecosystem" type="text" name="ecosystem" value={f.ecosystem ?? ''} />
      </div>
      <div>
        <label for="m-package">Package</label>
        <input id="m-package" type="text" name="package" value={f.package ?? ''} />
      </div>
      <div>
        <label for="m-cwe">Weakness (CWE)</label>
        <input id="m-cwe" type="text" name="cwe" value={f.cwe ?? ''} />
      </div>
      <div>
        <label for="m-search">Words</label>
        <input id="m-search" type="text" name="search" value={f.search ?? ''} />
      </div>
      <div>
        <label for="m-min-severity">Lowest severity</label>
        <select id="m-min-severity" name="min_severity">
          <option value="">Any</option>
          {['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'].map((s) => (
            <option value={s} selected={f.min_severity === s}>
              {s.toLowerCase()}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="m-min-risk">Lowest risk (0–100)</label>
        <input id="m-min-risk" type="text" inputmode="decimal" name="min_risk" value={f.min_risk !== undefined ? String(f.min_risk) : ''} />
      </div>
      <div>
        <label>
          <input type="checkbox" name="kev_only" value="true" checked={f.kev_only === true} /> Known exploited (KEV) only
        </label>
      </div>
      <div>
        <label for="m-cadence">How often</label>
        <select id="m-cadence" name="cadence">
          {[
            ['realtime', 'After each build with matches'],
            ['daily', 'Daily digest'],
            ['weekly', 'Weekly digest'],
          ].map(([value, label]) => (
            <option value={value} selected={view.cadence === value}>
              {label}
            </option>
          ))}
        </select>
      </div>
      <KindsFieldset checked={kinds} />
      <div>
        <button type="submit">Save changes</button>
      </div>
    </form>
  );
}

export function ManagePage({ view, token, notice }: { view: SubscriptionPageView; token: string; notice?: PageNotice | undefined }) {
  const action = `/pulse/s/${encodeURIComponent(token)}`;
  const paused = view.status === 'paused';
  return (
    <Layout title="Your subscription" section="subscribe">
      <h1>Your subscription</h1>
      <Notice notice={notice} />
      {view.problem ? (
        <div class="error-box" role="alert" id="problem">
          <p>
            <strong>Delivery problem:</strong> {view.problem}
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
        <EditForm view={view} action={action} />
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

export function LinkNotFoundPage({ message }: { message: string }) {
  return (
    <Layout title="Link not found" section="subscribe">
      <h1>Link not found</h1>
      <div class="error-box" role="alert" data-status="404">
        <p>{message}</p>
      </div>
      <p>
        <a href="/pulse/subscribe">Subscribe</a>
      </p>
    </Layout>
  );
}

export interface CreatedView {
  channel: string;
  manage_url: string | null;
  secret: string | null;
  confirmation: { sent_to: string; expires_at: string } | null;
}

export function SubscribedPage({ created }: { created: CreatedView }) {
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
          <p>Your endpoint answered the ping. Every delivery is signed with this secret — it is shown only once, keep it now:</p>
          <p>
            <code id="secret">{created.secret ?? ''}</code>
          </p>
          {created.manage_url ? (
            <p>
              Manage it here: <a href={created.manage_url}>{created.manage_url}</a>
            </p>
          ) : null}
        </div>
      )}
    </Layout>
  );
}
