/**
 * Minimal HTML pages of the /pulse subscription links: confirm, manage, unsubscribe. Plain,
 * escaped, no script; each state change is a POST from a button, never a GET (mail scanners
 * prefetch links). The /pulse web area replaces this file with its own pages on the same service.
 */
import { escapeHtml } from '../../lib/html.ts';
import { describeFilter, type SubscriptionView } from '../../lib/pulse/service.ts';

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)} — vulnintel pulse</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
@media (prefers-color-scheme:dark){body{background:#111;color:#eee}a{color:#8cf}}
button{font:inherit;padding:.4rem 1rem}table{border-collapse:collapse}td,th{padding:.2rem .6rem;text-align:left;border-bottom:1px solid #8884}</style>
</head><body><main><h1>${escapeHtml(title)}</h1>
${body}
</main></body></html>`;
}

function subscriptionFacts(view: SubscriptionView): string {
  const rows: [string, string][] = [
    ['Channel', `${view.channel}: ${view.address}`],
    ['Cadence', view.cadence],
    ['Filter', describeFilter(view.filter)],
    ['Status', view.status + (view.paused_reason ? ` (${view.paused_reason})` : '')],
    ['Created', view.created_at],
  ];
  return `<table>${rows.map(([k, v]) => `<tr><th scope="row">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('')}</table>`;
}

export function confirmPromptPage(token: string): string {
  return page(
    'Confirm your subscription',
    `<p>Press the button to start receiving the alerts you asked for.</p>
<form method="post" action="/pulse/confirm/${escapeHtml(encodeURIComponent(token))}"><button type="submit">Confirm</button></form>`,
  );
}

export function confirmedPage(view: SubscriptionView, manageUrl: string): string {
  return page(
    'Subscription confirmed',
    `${subscriptionFacts(view)}
<p>Keep this link to change, pause or delete the subscription (every alert carries one too):<br><a href="${escapeHtml(manageUrl)}">${escapeHtml(manageUrl)}</a></p>`,
  );
}

export function managePage(view: SubscriptionView, token: string): string {
  const base = `/pulse/s/${escapeHtml(encodeURIComponent(token))}`;
  const deliveries = view.deliveries.length
    ? `<table><thead><tr><th>Period</th><th>Status</th><th>Changes</th><th>Attempts</th><th>Error</th></tr></thead><tbody>${view.deliveries
        .map((d) => `<tr><td>${escapeHtml(d.period)}</td><td>${escapeHtml(d.status)}</td><td>${d.changes}</td><td>${d.attempts}</td><td>${escapeHtml(d.error ?? '')}</td></tr>`)
        .join('')}</tbody></table>`
    : '<p>Nothing delivered yet.</p>';
  return page(
    'Your subscription',
    `${subscriptionFacts(view)}
${view.problem ? `<p role="alert"><strong>Problem:</strong> ${escapeHtml(view.problem)}</p>` : ''}
<h2>Last deliveries</h2>
${deliveries}
<h2>Stop it</h2>
<form method="post" action="${base}/unsubscribe"><button type="submit">Unsubscribe (delete)</button></form>`,
  );
}

export function unsubscribePromptPage(token: string): string {
  return page(
    'Unsubscribe',
    `<p>Press the button to delete this subscription. Nothing more will be sent.</p>
<form method="post" action="/pulse/s/${escapeHtml(encodeURIComponent(token))}/unsubscribe"><button type="submit">Unsubscribe</button></form>`,
  );
}

export function unsubscribedPage(existed: boolean): string {
  return page('Unsubscribed', existed ? '<p>The subscription is deleted. Nothing more will be sent.</p>' : '<p>There is no subscription for this link (any more): nothing will be sent.</p>');
}

export function notFoundPage(message: string): string {
  return page('Link not found', `<p>${escapeHtml(message)}</p>`);
}
