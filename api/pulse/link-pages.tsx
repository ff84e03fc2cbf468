/**
 * The subscription pages on the subscription service (lib/pulse/service.ts): the subscribe
 * form's POST, the confirmation page, the manage page and its forms (edit, pause, resume,
 * delete), unsubscribe (RFC 8058 one-click included). They replace the service's minimal
 * placeholder pages. Never cached, never sent to another site as a Referer (the token is in the
 * URL). Errors of the service come back as a message next to the form, naming the field.
 */
import type { Context } from 'hono';
import { PulseInputError, PulseLimitError, PulseNotFoundError, PulseUnavailableError } from '../../lib/pulse/errors.ts';
import { MAX_BODY_BYTES } from '../../lib/pulse/input.ts';
import type { PulseService } from '../../lib/pulse/service.ts';
import { BodyTooLargeError, readBoundedBody } from '../http/bounded-body.ts';
import type { ApiApp, ApiConfig } from '../http/context.ts';
import { CACHE_CONTROL } from '../http/respond.ts';
import type { CallerResolver } from '../ratelimit/caller.ts';
import { filterFormOf, filterOfForm, loadSubscribeFor } from './load/subscribe.ts';
import { documentOf, PageError, sendPage } from './page-response.ts';
import { errorPage } from './routes.tsx';
import { SubscribePage } from './pages/subscribe.tsx';
import {
  ConfirmedPage,
  ConfirmPromptPage,
  LinkNotFoundPage,
  ManagePage,
  SubscribedPage,
  UnsubscribedPage,
  UnsubscribePromptPage,
  type PageNotice,
} from './pages/subscription.tsx';
import { withSnapshot } from './snapshot-access.ts';

export interface LinkPageOptions {
  service: PulseService;
  callers: CallerResolver;
}

const PRIVATE = { 'Referrer-Policy': 'no-referrer', 'X-Robots-Tag': 'noindex' };

async function send(c: Context, tree: unknown, status = 200): Promise<Response> {
  const res = sendPage(c, await documentOf(tree), { status, cacheControl: CACHE_CONTROL.noStore });
  for (const [k, v] of Object.entries(PRIVATE)) res.headers.set(k, v);
  return res;
}

/**
 * A posted form as name → every value, read only up to the JSON API's limit (a form holds a
 * few short fields; a larger body is a 400 naming `body`, never buffered). URL-encoded and
 * multipart forms alike; any other body is an empty form.
 */
async function formOf(c: Context): Promise<Record<string, string[]>> {
  let bytes: Uint8Array;
  try {
    bytes = await readBoundedBody(c, MAX_BODY_BYTES);
  } catch (err) {
    if (err instanceof BodyTooLargeError) throw new PageError(400, 'The form is too large', err.message, 'body');
    throw err;
  }
  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { 'content-type': c.req.header('content-type') ?? '' } }).formData();
  } catch {
    return {};
  }
  const out: Record<string, string[]> = {};
  for (const [name, value] of form.entries()) if (typeof value === 'string') (out[name] ??= []).push(value);
  return out;
}

/** Whether a form's filter is one filterOfForm takes. */
function filterIsValid(form: Record<string, string>): boolean {
  try {
    filterOfForm(form);
    return true;
  } catch {
    return false;
  }
}

/** What the service refused, as a notice for the page (null: not the service's refusal). */
function noticeOf(err: unknown): PageNotice | null {
  if (err instanceof PulseInputError) return { kind: 'error', message: err.message, field: err.field.replace(/^filter\./, '') };
  if (err instanceof PageError && err.status === 400) return { kind: 'error', message: err.message, field: err.parameter };
  if (err instanceof PulseLimitError) return { kind: 'error', message: err.message };
  if (err instanceof PulseUnavailableError) return { kind: 'error', message: err.message };
  return null;
}

function statusOf(err: unknown): number {
  return err instanceof PulseLimitError ? 429 : err instanceof PulseUnavailableError ? 503 : 400;
}

export function registerPulseLinkPages(app: ApiApp, config: ApiConfig, opts: LinkPageOptions): void {
  const { service, callers } = opts;
  const callerOf = (c: Context) => callers.resolve(c.env?.incoming?.socket?.remoteAddress, () => c.req.header('x-forwarded-for'));
  const notFoundPage = (c: Context, err: PulseNotFoundError) => send(c, <LinkNotFoundPage message={err.message} />, 404);

  // The subscribe form (works without JavaScript): create, then say what happens next.
  app.post('/pulse/subscribe', async (c) => {
    let form: Record<string, string> = {};
    try {
      const posted = await formOf(c);
      form = filterFormOf(posted);
      const filter = filterOfForm(form);
      const channel = posted.channel?.[0] ?? '';
      const body: Record<string, unknown> = { channel, cadence: posted.cadence?.[0] || 'realtime', filter };
      if (channel === 'email') body.email = (posted.email?.[0] ?? '').trim();
      else if (channel === 'webhook') body.url = (posted.url?.[0] ?? '').trim();
      const created = await service.create(body, callerOf(c));
      return send(c, <SubscribedPage created={{ channel, manage_url: created.manage_url, secret: created.secret, confirmation: created.confirmation }} />, 201);
    } catch (err) {
      const notice = noticeOf(err);
      if (!notice) throw err;
      // No snapshot to draw the form with: the refusal on an error page of its own.
      if (!config.store.current) return errorPage(c, new PageError(statusOf(err) === 400 ? 400 : 503, 'Not subscribed', notice.message, notice.field));
      return withSnapshot(config.store, async (snapshot) => {
        // The form shown again as typed; its lists loaded for no filter when the filter is what
        // was refused (loading them for it would refuse it a second time).
        const view = { ...(await loadSubscribeFor(snapshot, filterIsValid(form) ? form : {}, false)), form };
        return send(c, <SubscribePage view={view} buildId={snapshot.buildId} notice={{ ...notice, title: 'Not subscribed' }} />, statusOf(err));
      });
    }
  });

  app.get('/pulse/confirm/:token', (c) => send(c, <ConfirmPromptPage token={c.req.param('token')} />));
  app.post('/pulse/confirm/:token', async (c) => {
    try {
      const { subscription, manage_url } = await service.confirm(c.req.param('token'));
      return send(c, <ConfirmedPage view={subscription} manageUrl={manage_url} />);
    } catch (err) {
      if (err instanceof PulseNotFoundError) return notFoundPage(c, err);
      throw err;
    }
  });

  app.get('/pulse/s/:token', async (c) => {
    const token = c.req.param('token');
    try {
      return send(c, <ManagePage view={await service.get(token)} token={token} />);
    } catch (err) {
      if (err instanceof PulseNotFoundError) return notFoundPage(c, err);
      throw err;
    }
  });

  // The manage page's forms: `action` = update | pause | resume.
  app.post('/pulse/s/:token', async (c) => {
    const token = c.req.param('token');
    try {
      const posted = await formOf(c);
      const action = posted.action?.[0] ?? '';
      if (action === 'pause') await service.pause(token);
      else if (action === 'resume') await service.resume(token);
      else if (action === 'update') {
        const filter = filterOfForm(filterFormOf(posted));
        await service.update(token, { filter, cadence: posted.cadence?.[0] || 'realtime' });
      } else throw new PulseInputError('action', 'action: expected update, pause or resume');
      const done = action === 'pause' ? 'Paused: nothing is sent until you resume.' : action === 'resume' ? 'Resumed.' : 'Saved.';
      return send(c, <ManagePage view={await service.get(token)} token={token} notice={{ kind: 'ok', message: done }} />);
    } catch (err) {
      if (err instanceof PulseNotFoundError) return notFoundPage(c, err);
      const notice = noticeOf(err);
      if (!notice) throw err;
      try {
        return send(c, <ManagePage view={await service.get(token)} token={token} notice={notice} />, statusOf(err));
      } catch (again) {
        if (again instanceof PulseNotFoundError) return notFoundPage(c, again);
        throw again;
      }
    }
  });

  app.get('/pulse/s/:token/unsubscribe', (c) => send(c, <UnsubscribePromptPage token={c.req.param('token')} />));
  // RFC 8058: mail clients POST `List-Unsubscribe=One-Click` here; the page's button posts a form.
  app.post('/pulse/s/:token/unsubscribe', async (c) => {
    // The body says nothing this route reads (`List-Unsubscribe=One-Click`): read up to the limit only.
    await readBoundedBody(c, MAX_BODY_BYTES).catch(() => undefined);
    return send(c, <UnsubscribedPage existed={await service.unsubscribe(c.req.param('token'))} />);
  });
}
