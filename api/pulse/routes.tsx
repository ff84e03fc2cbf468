/**
 * The web area `/pulse` (PULSE.md §7): server-rendered pages (hono/jsx) over the same snapshot
 * store and query modules as the API, its assets, and the HTML error pages. Pages read from a
 * snapshot carry an ETag per snapshot and answer 304 before rendering when it matches.
 */
import type { Context } from 'hono';
import type { ApiApp, ApiConfig } from '../http/context.ts';
import type { ServingSnapshot } from '../snapshot/serving.ts';
import { methodNotAllowedHere } from '../http/errors.ts';
import { CVE_ID } from '../http/params.ts';
import { CACHE_CONTROL, conditionalTag, ifNoneMatchHits, sendJson } from '../http/respond.ts';
import { ASSETS } from './assets.ts';
import { advisoryPath } from './format.ts';
import { loadAdvisory, loadAdvisoryList } from './load/advisories.ts';
import { loadCve } from './load/cve.ts';
import { isFormField, loadCveList, refusedCveListView } from './load/cves-list.ts';
import { isFilterField, loadSubscribe, loadSubscribeFor, typedFilterForm } from './load/subscribe.ts';
import { readSuggestRequest, suggest } from './load/suggest.ts';
import { registerSuggestOpenApi } from './suggest-openapi.ts';
import { loadDashboard } from './load/dashboard.ts';
import { documentOf, notModified, PageError, sendPage, snapshotPageEtag } from './page-response.ts';
import { AdvisoryListPage, AdvisoryPage } from './pages/advisories.tsx';
import { CvePage } from './pages/cve.tsx';
import { CveListPage } from './pages/cves-list.tsx';
import { DashboardPage } from './pages/dashboard.tsx';
import { ErrorPage } from './pages/error.tsx';
import { SubscribePage } from './pages/subscribe.tsx';
import type { Handoffs } from './handoff.ts';
import { pulsePagePatterns } from './page-methods.ts';
import { withSnapshot } from './snapshot-access.ts';

/** Renders an error as its HTML page. */
export async function errorPage(c: Context, err: PageError, buildId?: string): Promise<Response> {
  const html = await documentOf(
    <ErrorPage status={err.status} title={err.title} message={err.message} parameter={err.parameter} buildId={buildId} withoutParameter={withoutParameter(c, err)} />,
  );
  return sendPage(c, html, { status: err.status });
}

/**
 * The page asked for without the query parameter a 400 names (a GET or HEAD that sent it), else
 * undefined. HEAD too: it must carry its GET's headers, and the link is part of the body they
 * measure (Content-Length, ETag).
 */
function withoutParameter(c: Context, err: PageError): string | undefined {
  if (err.status !== 400 || !err.parameter || (c.req.method !== 'GET' && c.req.method !== 'HEAD')) return undefined;
  const url = new URL(c.req.url);
  if (!url.searchParams.has(err.parameter)) return undefined;
  url.searchParams.delete(err.parameter);
  const query = url.searchParams.toString();
  return `${url.pathname}${query ? `?${query}` : ''}`;
}

/** 404 for any /pulse path no page answers. */
export function pulseNotFound(c: Context): Promise<Response> {
  return errorPage(c, new PageError(404, 'Page not found', `There is no page at ${c.req.path}.`));
}

/**
 * Any other method on the /pulse pages: 405 with the path's Allow (as /api and /pulse/api
 * answer), an HTML page saying which methods the page takes; /pulse/suggest answers JSON as it
 * always does. Registered after every page (app.ts), so the methods they take match first.
 */
export function registerPulsePageMethods(app: ApiApp, withService: boolean): void {
  for (const { pattern, allow } of pulsePagePatterns(withService)) {
    app.all(pattern, async (c) => {
      if (pattern === '/pulse/suggest') throw methodNotAllowedHere(c.req.method, allow);
      const html = await documentOf(
        <ErrorPage status={405} title="Method not allowed" message={`This page does not take ${c.req.method}: it takes ${allow}.`} />,
      );
      const res = sendPage(c, html, { status: 405 });
      res.headers.set('Allow', allow);
      return res;
    });
  }
}

/** The page's tree, or an answer of its own (a redirect to the page's one address). */
type Render = (snapshot: ServingSnapshot, c: Context) => Promise<unknown>;
/** The page itself for a refusal it can show in place (a 400 shown in its form), else undefined. */
type RenderRefused = (err: PageError, snapshot: ServingSnapshot, c: Context) => unknown | Promise<unknown>;

/**
 * `answer` on the served snapshot, a PageError as its HTML page (naming the snapshot when one
 * was served; none served is a PageError too).
 */
async function withPageSnapshot(c: Context, config: ApiConfig, answer: (snapshot: ServingSnapshot) => Promise<Response>): Promise<Response> {
  try {
    return await withSnapshot(config.store, async (snapshot) => {
      try {
        return await answer(snapshot);
      } catch (err) {
        if (err instanceof PageError) return errorPage(c, err, snapshot.buildId);
        throw err;
      }
    }, c);
  } catch (err) {
    if (err instanceof PageError) return errorPage(c, err);
    throw err;
  }
}

/**
 * A page read from the snapshot: 304 by ETag before any work, errors as HTML pages — or, for a
 * refusal `refused` renders, the page itself with the refusal's status.
 */
function snapshotPage(config: ApiConfig, render: Render, refused?: RenderRefused) {
  return (c: Context): Promise<Response> =>
    withPageSnapshot(c, config, async (snapshot) => {
      const etag = snapshotPageEtag(c, snapshot.buildId);
      const cached = notModified(c, etag);
      if (cached) return cached;
      const started = performance.now();
      let tree: unknown;
      try {
        tree = await render(snapshot, c);
      } catch (err) {
        const inPlace = err instanceof PageError && refused ? await refused(err, snapshot, c) : undefined;
        if (inPlace === undefined) throw err;
        return sendPage(c, await documentOf(inPlace), { status: (err as PageError).status });
      }
      if (tree instanceof Response) return tree;
      const html = await documentOf(tree);
      // Server time of the page (read by `npm run bench:pulse` and browsers' dev tools).
      c.header('Server-Timing', `page;dur=${(performance.now() - started).toFixed(2)}`);
      return sendPage(c, html, { etag });
    });
}

/** What the pages share with the subscription pages (api/pulse/link-pages.tsx) when a subscription service is served. */
export interface PulsePageOptions {
  /** The subscribe form's drafts and creations, between a POST and the GET it redirects to. */
  handoffs: Handoffs;
  /** Whether the subscription service sends e-mail (an SMTP server was given). */
  email: boolean;
}

/**
 * `/pulse/subscribe?…&draft=<id>`: the preview a posted form was redirected to, its channel's
 * fields (an address, a webhook URL) filled back from the draft — never cached, never sent as
 * a Referer (the id reads the draft back while it lasts).
 */
function subscribeDraftPage(c: Context, config: ApiConfig, { handoffs, email }: PulsePageOptions, draftId: string): Promise<Response> {
  return withPageSnapshot(c, config, async (snapshot) => {
    const view = await loadSubscribe(snapshot, c);
    const draft = handoffs.read(draftId);
    const channel = draft !== null && draft !== 'taken' && draft.kind === 'draft' ? draft : undefined;
    const notice = channel
      ? undefined
      : { kind: 'error' as const, title: 'Type the channel again', message: 'What you typed under "How to be told" before the preview is no longer kept (it is kept for an hour, on this server only): type it again.' };
    const html = await documentOf(<SubscribePage view={view} buildId={snapshot.buildId} channel={channel} notice={notice} canEmail={email} />);
    const res = sendPage(c, html, { cacheControl: CACHE_CONTROL.noStore });
    res.headers.set('Referrer-Policy', 'no-referrer');
    return res;
  });
}

export function registerPulse(app: ApiApp, config: ApiConfig, pulse?: PulsePageOptions): void {
  app.get('/pulse/assets/:file', (c) => {
    const asset = ASSETS[c.req.param('file')];
    if (!asset) return pulseNotFound(c);
    const headers = { ETag: asset.etag, 'Cache-Control': 'public, max-age=31536000, immutable' };
    if (ifNoneMatchHits(conditionalTag(c), asset.etag)) return c.body(null, 304, headers);
    // Content-Length stated, as sendPage does: a HEAD (its body dropped by Hono) carries its GET's.
    return c.body(new Uint8Array(asset.body), 200, { ...headers, 'Content-Type': asset.contentType, 'Content-Length': String(asset.body.byteLength) });
  });

  app.get('/pulse', snapshotPage(config, async (snapshot) => <DashboardPage data={await loadDashboard(snapshot)} />));
  app.get('/pulse/', (c) => c.redirect('/pulse', 301));
  app.get(
    '/pulse/cves',
    snapshotPage(
      config,
      async (snapshot, c) => <CveListPage view={await loadCveList(snapshot, c, config.queryBudgetMs)} buildId={snapshot.buildId} />,
      // A refused field of the form: the form again, as typed, the field marked.
      (err, snapshot, c) =>
        err.status === 400 && isFormField(err.parameter) ? (
          <CveListPage
            view={refusedCveListView(c)}
            buildId={snapshot.buildId}
            problem={{ field: err.parameter, message: err.message }}
            withoutProblem={withoutParameter(c, err)}
          />
        ) : undefined,
    ),
  );
  app.get(
    '/pulse/cves/:id',
    // One address per CVE page: `cve-2024-3400` is sent to `CVE-2024-3400` (a copy under each
    // spelling splits bookmarks, history and caches).
    async (c, next) => {
      const raw = c.req.param('id') ?? '';
      if (!CVE_ID.test(raw) || raw === raw.toUpperCase()) return next();
      return c.redirect(`/pulse/cves/${raw.toUpperCase()}${new URL(c.req.url).search}`, 301);
    },
    snapshotPage(config, async (snapshot, c) => <CvePage data={await loadCve(snapshot, c.req.param('id') ?? '')} buildId={snapshot.buildId} />),
  );
  app.get(
    '/pulse/advisories',
    snapshotPage(config, async (snapshot, c) => <AdvisoryListPage view={await loadAdvisoryList(snapshot, c)} buildId={snapshot.buildId} />),
  );
  app.get(
    '/pulse/advisories/:vendor/:id',
    snapshotPage(config, async (snapshot, c) => {
      const vendor = c.req.param('vendor') ?? '';
      const id = c.req.param('id') ?? '';
      const advisory = await loadAdvisory(snapshot, vendor, id);
      // One address per advisory page, as per CVE page: found in any case (as the API finds it),
      // `REDHAT/rhsa-2026:9102` is sent to the advisory's own spelling, not a 200 copy.
      if (vendor !== advisory.vendor || id !== advisory.advisory_id) return c.redirect(`${advisoryPath(advisory.vendor, advisory.advisory_id)}${new URL(c.req.url).search}`, 301);
      return <AdvisoryPage advisory={advisory} buildId={snapshot.buildId} />;
    }),
  );
  const subscribePage = snapshotPage(
    config,
    async (snapshot, c) => <SubscribePage view={await loadSubscribe(snapshot, c)} buildId={snapshot.buildId} canSubscribe={pulse !== undefined} canEmail={pulse?.email ?? true} />,
    // A refused filter field (the form's own GET on a server without subscriptions, a link): the
    // form again, as typed, the field marked, as the form's POST answers it; an error page lost
    // every field typed.
    async (err, snapshot, c) =>
      err.status === 400 && isFilterField(err.parameter) ? (
        <SubscribePage
          view={{ ...(await loadSubscribeFor(snapshot, {}, false)), form: typedFilterForm(c.req.queries()) }}
          buildId={snapshot.buildId}
          notice={{ kind: 'error', title: 'Not previewed', message: err.message, field: err.parameter }}
          canSubscribe={pulse !== undefined}
          canEmail={pulse?.email ?? true}
        />
      ) : undefined,
  );
  app.get('/pulse/subscribe', (c) => {
    const draft = c.req.query('draft');
    return draft !== undefined && pulse ? subscribeDraftPage(c, config, pulse, draft) : subscribePage(c);
  });
  registerSuggestOpenApi(app);
  app.get('/pulse/suggest', async (c) => {
    try {
      const request = readSuggestRequest((name) => c.req.queries(name) ?? []);
      return await withSnapshot(config.store, async (snapshot) => {
        const values = await suggest(snapshot, request);
        return sendJson(c, { field: request.field, values });
      }, c);
    } catch (err) {
      if (err instanceof PageError) {
        // A refusal names its parameter; the 503 (no snapshot yet) is about none.
        const refusal = err.status === 400 ? { code: 'INVALID_PARAMETER', message: err.message, parameter: err.parameter ?? 'query' } : { code: 'NO_SNAPSHOT', message: err.message };
        return sendJson(c, refusal, { status: err.status });
      }
      throw err;
    }
  });
}
