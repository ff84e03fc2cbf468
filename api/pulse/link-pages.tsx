/**
 * The subscription pages on the subscription service (lib/pulse/service.ts): the subscribe
 * form's POST, the confirmation page, the manage page and its forms (edit, pause, resume,
 * delete), unsubscribe (RFC 8058 one-click included). They replace the service's minimal
 * placeholder pages. Never cached, never sent to another site as a Referer (the token is in the
 * URL).
 *
 * POST-redirect-GET: a form that did what it asked is answered 303 to a GET page, so a reload or
 * Back repeats that GET, never the POST (a reload of the subscribe answer created a second
 * subscription and sent a second mail; Back after Delete was ERR_CACHE_MISS). What the GET page
 * shows that its URL cannot carry goes through api/pulse/handoff.ts — the webhook's secret and
 * manage link there shown once. A refused form is answered directly (400/429/503), every value
 * as typed and the field at fault marked beside it: its reload only tries again.
 */
import type { Context } from 'hono';
import { PulseInputError, PulseLimitError, PulseNotFoundError, PulseUnavailableError } from '../../lib/pulse/errors.ts';
import { MAX_BODY_BYTES } from '../../lib/pulse/input.ts';
import type { PulseService } from '../../lib/pulse/service.ts';
import { BodyTooLargeError, readBoundedBody } from '../http/bounded-body.ts';
import type { ApiApp, ApiConfig } from '../http/context.ts';
import { CACHE_CONTROL } from '../http/respond.ts';
import type { CallerResolver } from '../ratelimit/caller.ts';
import { CREATED_TTL_MS, DRAFT_TTL_MS, type Handoffs } from './handoff.ts';
import { filterFormOf, filterOfForm, loadSubscribeFor, typedFilterForm } from './load/subscribe.ts';
import { documentOf, PageError, sendPage } from './page-response.ts';
import { errorPage } from './routes.tsx';
import { DEFAULT_CHANNEL, SubscribePage, type ChannelValues } from './pages/subscribe.tsx';
import {
  ConfirmPromptPage,
  LinkNotFoundPage,
  ManagePage,
  SubscribedPage,
  UnsubscribedPage,
  UnsubscribePromptPage,
  editValuesOf,
  type EditValues,
  type PageNotice,
} from './pages/subscription.tsx';
import { withSnapshot } from './snapshot-access.ts';

export interface LinkPageOptions {
  service: PulseService;
  callers: CallerResolver;
  /** Shared with the subscribe page's GET (api/pulse/routes.tsx), which reads the drafts back. */
  handoffs: Handoffs;
}

const PRIVATE = { 'Referrer-Policy': 'no-referrer', 'X-Robots-Tag': 'noindex' };

async function send(c: Context, tree: unknown, status = 200): Promise<Response> {
  const res = sendPage(c, await documentOf(tree), { status, cacheControl: CACHE_CONTROL.noStore });
  for (const [k, v] of Object.entries(PRIVATE)) res.headers.set(k, v);
  return res;
}

/** 303 See Other to the GET page of what a POST did (never cached, never a Referer). */
function seeOther(c: Context, location: string): Response {
  return c.body(null, 303, { Location: location, 'Cache-Control': CACHE_CONTROL.noStore, ...PRIVATE });
}

/** The first value of a posted field, trimmed ('' when absent). */
const first = (posted: Record<string, string[]>, name: string) => (posted[name]?.[0] ?? '').trim();

/** The channel's fields as posted. */
function channelOf(posted: Record<string, string[]>): ChannelValues {
  return { channel: first(posted, 'channel') || 'email', email: first(posted, 'email'), url: first(posted, 'url'), cadence: first(posted, 'cadence') || 'realtime' };
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
  // Without a prototype: a field named `toString`, `constructor` or `__proto__` found an
  // inherited member under `out[name]` (no array to push to: a 500) instead of no field yet.
  const out: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
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

/** The manage page's notices after a redirect (`?done=`). */
const DONE: Readonly<Record<string, string>> = {
  confirmed: 'Subscription confirmed: alerts will arrive as you asked. Keep this page\'s address, it is your manage link (every alert carries one too):',
  update: 'Saved.',
  pause: 'Paused: nothing is sent until you resume.',
  resume: 'Resumed.',
};

const UNKNOWN_UNSUBSCRIBE = 'This unsubscribe link is unknown, or its subscription was already deleted: nothing more will be sent for it.';

export function registerPulseLinkPages(app: ApiApp, config: ApiConfig, opts: LinkPageOptions): void {
  const { service, callers, handoffs } = opts;
  const callerOf = (c: Context) => callers.resolve(c.env?.incoming?.socket?.remoteAddress, () => c.req.header('x-forwarded-for'));
  const notFoundPage = (c: Context, err: PulseNotFoundError) => send(c, <LinkNotFoundPage message={err.message} />, 404);

  // The subscribe form (works without JavaScript): `intent` = preview | subscribe. Preview is
  // redirected to the preview's GET page (the channel's fields kept in a draft, out of its URL);
  // Subscribe creates, then is redirected to the page saying what happens next.
  app.post('/pulse/subscribe', async (c) => {
    let form: Record<string, string> = {};
    let channel: ChannelValues = DEFAULT_CHANNEL;
    let intent = 'subscribe';
    try {
      const posted = await formOf(c);
      form = typedFilterForm(posted);
      channel = channelOf(posted);
      // `enter`: Enter pressed in a field (the form's default button, pages/subscribe.tsx). It
      // subscribes once the channel's address is typed; before, it previews the filter being
      // chosen (a subscription without an address could only be refused).
      const asked = first(posted, 'intent');
      const addressTyped = (channel.channel === 'webhook' ? channel.url : channel.email).trim() !== '';
      intent = asked === 'preview' || (asked === 'enter' && !addressTyped) ? 'preview' : 'subscribe';
      const strict = filterFormOf(posted);
      const filter = filterOfForm(strict);
      if (intent === 'preview') {
        const query = new URLSearchParams(strict);
        query.set('preview', '1');
        const typed = channel.email !== '' || channel.url !== '' || channel.channel !== DEFAULT_CHANNEL.channel || channel.cadence !== DEFAULT_CHANNEL.cadence;
        if (typed) query.set('draft', handoffs.put({ kind: 'draft', ...channel }, DRAFT_TTL_MS));
        return seeOther(c, `/pulse/subscribe?${query.toString()}#preview-h`);
      }
      const body: Record<string, unknown> = { channel: channel.channel, cadence: channel.cadence, filter };
      if (channel.channel === 'email') body.email = channel.email;
      else if (channel.channel === 'webhook') body.url = channel.url;
      const created = await service.create(body, callerOf(c));
      const id = handoffs.put(
        {
          kind: 'created',
          channel: channel.channel === 'webhook' ? 'webhook' : 'email',
          manage_url: created.manage_url,
          secret: created.secret,
          confirmation: created.confirmation,
        },
        CREATED_TTL_MS,
      );
      return seeOther(c, `/pulse/subscribed/${id}`);
    } catch (err) {
      const notice = noticeOf(err);
      if (!notice) throw err;
      const title = intent === 'preview' ? 'Not previewed' : 'Not subscribed';
      // No snapshot to draw the form with: the refusal on an error page of its own.
      if (!config.store.current) return errorPage(c, new PageError(statusOf(err) === 400 ? 400 : 503, title, notice.message, notice.field));
      return withSnapshot(config.store, async (snapshot) => {
        // The form shown again as typed, the channel's fields too; its lists loaded for no filter
        // when the filter is what was refused (loading them for it would refuse it a second time).
        // A filter taken (the channel refused) is previewed: the page says it was the last
        // previewed and offers its feed, over a preview that said "press Preview".
        const valid = filterIsValid(form);
        const view = { ...(await loadSubscribeFor(snapshot, valid ? form : {}, valid && Object.keys(form).length > 0)), form };
        return send(c, <SubscribePage view={view} buildId={snapshot.buildId} notice={{ ...notice, title }} channel={channel} canEmail={service.emailEnabled} />, statusOf(err));
      }, c);
    }
  });

  // What creating a subscription answered, once: a webhook's secret and manage link are taken
  // from the handoff by the first GET; a reload says they were shown. A HEAD (its GET's headers,
  // no body) takes nothing.
  app.get('/pulse/subscribed/:id', async (c) => {
    const got = handoffs.read(c.req.param('id'), c.req.method !== 'HEAD');
    if (got === 'taken') return send(c, <SubscribedPage shownAlready />);
    if (got === null || got.kind !== 'created') {
      return send(
        c,
        <LinkNotFoundPage
          title="This page has expired"
          message="What a new subscription needs to know is shown here for a few minutes, a webhook's secret and manage link once. An e-mail subscription's confirmation link is in its mailbox; a webhook's secret cannot be shown again: subscribe again (an endpoint answering 410 Gone pauses the first one)."
        />,
        404,
      );
    }
    return send(c, <SubscribedPage created={got} />);
  });

  // A GET changes nothing (mail scanners prefetch links): a button posts. A link that cannot
  // confirm (unknown, expired or used) says so at once, read from the store.
  app.get('/pulse/confirm/:token', async (c) => {
    const token = c.req.param('token');
    try {
      await service.checkConfirmation(token);
    } catch (err) {
      if (err instanceof PulseNotFoundError) return notFoundPage(c, err);
      throw err;
    }
    return send(c, <ConfirmPromptPage token={token} />);
  });
  // Confirmed (again: harmless), 303 to the manage page its new manage link opens: a reload or
  // Back is that GET (a reload re-posted, issuing one more manage link each time).
  app.post('/pulse/confirm/:token', async (c) => {
    try {
      const { manage_url } = await service.confirm(c.req.param('token'));
      const token = manage_url.slice(manage_url.lastIndexOf('/') + 1);
      return seeOther(c, `/pulse/s/${encodeURIComponent(token)}?done=confirmed`);
    } catch (err) {
      if (err instanceof PulseNotFoundError) return notFoundPage(c, err);
      throw err;
    }
  });

  app.get('/pulse/s/:token', async (c) => {
    const token = c.req.param('token');
    const doneKey = c.req.query('done') ?? '';
    // Own members only: `?done=toString` found the inherited function (an empty notice).
    const done = Object.hasOwn(DONE, doneKey) ? DONE[doneKey] : undefined;
    // Just confirmed: the page's own address, as the manage link to keep.
    const manageUrl = doneKey === 'confirmed' ? `${config.publicUrl ?? new URL(c.req.url).origin}/pulse/s/${encodeURIComponent(token)}` : undefined;
    try {
      return send(c, <ManagePage view={await service.get(token)} token={token} notice={done ? { kind: 'ok', message: done, link: manageUrl } : undefined} />);
    } catch (err) {
      if (err instanceof PulseNotFoundError) return notFoundPage(c, err);
      throw err;
    }
  });

  // The manage page's forms: `action` = update | pause | resume; done, 303 to the manage page.
  app.post('/pulse/s/:token', async (c) => {
    const token = c.req.param('token');
    let edit: EditValues | undefined;
    try {
      const posted = await formOf(c);
      const action = first(posted, 'action');
      if (action === 'pause') await service.pause(token);
      else if (action === 'resume') await service.resume(token);
      else if (action === 'update') {
        edit = { form: typedFilterForm(posted), cadence: first(posted, 'cadence') || 'realtime' };
        const filter = filterOfForm(filterFormOf(posted));
        await service.update(token, { filter, cadence: edit.cadence });
      } else throw new PulseInputError('action', 'action: expected update, pause or resume');
      return seeOther(c, `/pulse/s/${encodeURIComponent(token)}?done=${action}`);
    } catch (err) {
      if (err instanceof PulseNotFoundError) return notFoundPage(c, err);
      const notice = noticeOf(err);
      if (!notice) throw err;
      try {
        // The edit form shown again with what was typed, the refused field marked.
        return send(c, <ManagePage view={await service.get(token)} token={token} notice={notice} edit={edit} />, statusOf(err));
      } catch (again) {
        if (again instanceof PulseNotFoundError) return notFoundPage(c, again);
        throw again;
      }
    }
  });

  // The unsubscribe link: the page says at once when it opens nothing (a read, nothing changed).
  app.get('/pulse/s/:token/unsubscribe', async (c) => {
    const token = c.req.param('token');
    try {
      await service.get(token);
    } catch (err) {
      if (err instanceof PulseNotFoundError) return send(c, <LinkNotFoundPage title="Nothing to unsubscribe" message={UNKNOWN_UNSUBSCRIBE} />, 404);
      throw err;
    }
    return send(c, <UnsubscribePromptPage token={token} />);
  });
  // RFC 8058: mail clients POST `List-Unsubscribe=One-Click` here and are answered here (a
  // redirect is not followed by them: §3.2). The pages' buttons post `from=page` and are
  // redirected to the page saying it is done (Back then is a GET, not ERR_CACHE_MISS).
  app.post('/pulse/s/:token/unsubscribe', async (c) => {
    let fromPage = false;
    try {
      fromPage = first(await formOf(c), 'from') === 'page';
    } catch {
      // The body says nothing else this route reads: a body too large is a one-click like any.
    }
    const existed = await service.unsubscribe(c.req.param('token'));
    if (fromPage) return seeOther(c, `/pulse/unsubscribed?result=${existed ? 'deleted' : 'gone'}`);
    return send(c, <UnsubscribedPage existed={existed} />);
  });
  app.get('/pulse/unsubscribed', (c) => send(c, <UnsubscribedPage existed={c.req.query('result') === 'deleted'} />));
}
