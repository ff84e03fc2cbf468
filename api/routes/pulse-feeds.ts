/**
 * The change feed for readers and browsers (PULSE §3), outside the JSON API:
 *   - `GET /pulse/feeds/changes.atom?<filters>`: an Atom 1.0 feed (RFC 4287) of the matching
 *     changes, newest first, one entry per change linking to its /pulse page;
 *   - `GET /pulse/stream?<filters>`: Server-Sent Events. Each time the replica swaps to a new
 *     snapshot it sends the matching changes recorded since the last one it sent (event id =
 *     change_id, data = the change as the JSON API shows it), then an id-only block naming the
 *     build it has caught up to (positionBlock; sent when the stream opens too); `Last-Event-ID`
 *     resumes after that change or build from the snapshot's history; an SSE comment every 25 s
 *     keeps the connection open; a caller holds a bounded number of streams (429 beyond).
 * The filters are those of `/api/v1/public/changes` (change-params.ts). A stream retains a
 * snapshot only while it reads from it, so an open stream never pins an old snapshot.
 */
import { Feed } from 'feed';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { whyQuotesTitle, type ChangeFilter, type ChangeRow } from '../../lib/changes/model.ts';
import { withoutBidiControls } from '../../lib/html.ts';
import { advisoryPath, cvePath } from '../../lib/pulse/links.ts';
import { buildTimeOf } from '../../lib/snapshot-layout.ts';
import type { ApiApp, ApiConfig, ApiEnv, RouteModule } from '../http/context.ts';
import { noSnapshot } from '../http/errors.ts';
import { streamBoundRefusal } from '../http/streams.ts';
import { integerParam } from '../http/params.ts';
import { asRouteResponse, CACHE_CONTROL, etagOf, notModifiedSince } from '../http/respond.ts';
import { type ChangePosition, changesInStreamOrder, listChanges, positionOfChange } from '../queries/changes.ts';
import type { ServingSnapshot } from '../snapshot/serving.ts';
import { ChangeFilterQuery, changeFeedParams, changeFilterParams, encodeCursor, filterOfQuery, parseQuery, withFilterRules } from './change-params.ts';
import { changeJson } from './changes.ts';
import { errorResponses } from './cves-schemas.ts';
import { readingTables } from './resource-common.ts';
import { createRoute, z } from '@hono/zod-openapi';

export const ATOM_PATH = '/pulse/feeds/changes.atom';
export const STREAM_PATH = '/pulse/stream';

const AtomQuery = withFilterRules(
  z.object({
    ...changeFilterParams,
    limit: integerParam({ min: 1, max: 200, default: 50, description: 'Entries, 1-200.' }),
    cursor: changeFeedParams.cursor,
  }),
);

/**
 * The feed's own URL, the same whatever spelling asked for it: the public base, the path, the
 * filter's members sorted with their values as validated (`kev_only=1` and `kev_only=true` are
 * one feed, and so are `kind=a,b` and `kind=b,a`); neither the page size nor the cursor. RFC 4287
 * wants a feed's id permanent.
 */
function canonicalFeedUrl(base: string, query: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const name of Object.keys(changeFilterParams).sort()) {
    const value = query[name];
    if (value === undefined || value === null) continue;
    // A list (the kinds) is a set: its members sorted, so `kind=b,a` is the feed `kind=a,b` is.
    params.set(name, Array.isArray(value) ? [...value].map(String).sort().join(',') : String(value));
  }
  const text = params.toString();
  return `${base}${ATOM_PATH}${text ? `?${text}` : ''}`;
}

/** Changes sent per read when a stream catches up (a swap, a resume); it reads again until done. */
const STREAM_BATCH = 500;

const KIND_TITLES: Record<string, string> = {
  new_cve: 'new CVE',
  new_advisory: 'new vendor advisory',
  advisory_linked: 'advisory now names a CVE',
  kev_added: 'added to CISA KEV',
  kev_removed: 'removed from CISA KEV',
  severity_changed: 'severity changed',
  score_changed: 'score changed',
  risk_changed: 'risk changed',
  epss_crossed: 'EPSS crossed a threshold',
  exploit_published: 'first public exploit',
  assessed: 'assessed',
  rejected: 'rejected',
  cvss_changed: 'CVSS v3 changed',
  ssvc_changed: 'SSVC decision changed',
};

/**
 * Characters XML 1.0 allows nowhere, not even as references: C0 controls but tab, newline and
 * carriage return, U+FFFE, U+FFFF, and a surrogate without its pair. Upstream text may hold
 * them (a stray NUL or ESC in a description), and one of them makes the whole feed unreadable
 * to a feed reader, so they are dropped (a lone surrogate becomes U+FFFD, as UTF-8 writes it).
 */
const XML_FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Text for an Atom `type="html"` element: upstream text must show as text, never as markup,
 * hold only characters XML allows, and no bidirectional control (lib/html.ts BIDI_CONTROLS: a
 * reader would show the text reordered).
 */
function escapeHtml(text: string): string {
  return withoutBidiControls(text)
    .replace(XML_FORBIDDEN, (ch) => (ch >= '\ud800' && ch <= '\udfff' ? '\ufffd' : ''))
    .replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** The feed title as the feed library writes it, replaced with the real one (renderAtom). */
const TITLE_SLOT = 'vulnintel-feed-title';

/** Text as the content of an XML element (characters XML forbids already dropped). */
function escapeXmlText(text: string): string {
  return text.replace(/[&<>]/g, (ch) => (ch === '&' ? '&amp;' : ch === '<' ? '&lt;' : '&gt;'));
}

/** The /pulse page of a change's subject. */
export function subjectPath(change: ChangeRow): string {
  return change.subject_type === 'advisory' ? advisoryPath(change.vendor ?? '', change.advisory_id ?? '') : cvePath(change.cve_id ?? '');
}

function subjectName(change: ChangeRow): string {
  return change.subject_type === 'advisory' ? `${change.vendor} ${change.advisory_id}` : (change.cve_id ?? '');
}

/** When a feed of `changes` last changed (its `updated`): the newest change, else the build. */
export function feedUpdated(changes: ChangeRow[], snapshot: ServingSnapshot): string {
  return changes[0]?.detected_at ?? snapshot.manifest.built_at;
}

/** Why, then the subject's title unless why already quotes it (a new advisory's does). */
function summaryOf(change: ChangeRow): string {
  return change.title && !whyQuotesTitle(change.why, change.title) ? `${change.why} ${change.title}` : change.why;
}

export function renderAtom(changes: ChangeRow[], opts: { id: string; selfUrl: string; nextUrl: string | null; origin: string; snapshot: ServingSnapshot }): string {
  const newest = feedUpdated(changes, opts.snapshot);
  // The filter in the title: several subscribed feeds are told apart in a reader's list.
  const filter = withoutBidiControls([...new URL(opts.id).searchParams].map(([name, value]) => `${name} ${value}`).join(', ')).replace(XML_FORBIDDEN, '');
  const title = `vulnintel: what changed${filter ? ` (${filter})` : ''}`;
  const feed = new Feed({
    id: opts.id,
    title: TITLE_SLOT,
    description: 'New CVEs and vendor advisories, KEV additions, EPSS crossings and score changes, each with why.',
    updated: new Date(newest),
    link: `${opts.origin}/pulse`,
    feedLinks: { atom: opts.selfUrl },
    author: { name: 'vulnintel' },
    generator: false,
  });
  for (const change of changes) {
    feed.addItem({
      id: `urn:vulnintel:change:${change.change_id}`,
      title: escapeHtml(`${subjectName(change)}: ${KIND_TITLES[change.kind] ?? change.kind}`),
      link: `${opts.origin}${subjectPath(change)}`,
      date: new Date(change.detected_at),
      description: escapeHtml(summaryOf(change)),
    });
  }
  // The feed library's XML writer (xml-js) turns `&amp;` into `&` before it escapes a text, so a
  // filter of `a&amp;b` was titled `a&b`: the title is written here, escaped once.
  const xml = feed.atom1().replace(`<title>${TITLE_SLOT}</title>`, () => `<title>${escapeXmlText(title)}</title>`);
  if (opts.nextUrl === null) return xml;
  // The feed library writes no `next` link: added after the `self` one it wrote.
  const next = `<link rel="next" href="${escapeHtml(opts.nextUrl)}"/>`;
  return xml.replace(/(<link rel="self" href="[^"]*"\/>)/, `$1\n    ${next}`);
}

/** The position just past every change of `buildId`: a stream starting now sends later builds only. */
function endOfBuild(buildId: string): ChangePosition {
  return { build_id: buildId, change_id: '~' };
}

/** Days of history a snapshot carries (sql/10_changes.sql, PULSE §2). */
const HISTORY_DAYS = 90;

function isAfter(a: ChangePosition, b: ChangePosition): boolean {
  return a.build_id > b.build_id || (a.build_id === b.build_id && a.change_id > b.change_id);
}

/**
 * Whether every change recorded after the build built at `builtAt` is still in `snapshot`'s
 * history: the history keeps the builds of the last 90 days before the snapshot's, and the
 * builds after that one are no older than it.
 */
function historyReaches(snapshot: ServingSnapshot, builtAt: number): boolean {
  return builtAt >= Date.parse(snapshot.manifest.built_at) - HISTORY_DAYS * 86_400_000;
}

/**
 * An SSE block holding only an `id` field: an EventSource dispatches no event for it, but takes
 * the id as its last event ID (WHATWG HTML, interpreting an event stream), and sends it back as
 * `Last-Event-ID` when it reconnects. A stream sends the build it has caught up to this way, so
 * that a client dropped before the next event, or after changes its filter left out, resumes
 * where the stream was, not after whatever build its new connection finds served.
 */
function positionBlock(buildId: string): string {
  return `id: ${buildId}\n\n`;
}

function retainOrNull(snapshot: ServingSnapshot): (() => void) | null {
  try {
    return snapshot.retain();
  } catch {
    return null; // closed meanwhile: a newer snapshot's swap will bring the same changes
  }
}

const atomRoute = createRoute({
  operationId: 'getChangesAtomFeed',
  method: 'get',
  path: ATOM_PATH,
  tags: ['Changes'],
  summary: 'The change feed as Atom 1.0, for feed readers',
  request: { query: AtomQuery },
  responses: {
    200: {
      description: 'An Atom 1.0 feed of the newest matching changes, newest first; `rel="next"` pages on (RFC 5005).',
      headers: {
        'Last-Modified': {
          description: 'The feed\'s `updated` (its newest change, else the build\'s time): send it back in `If-Modified-Since` to get 304 (`If-None-Match` takes precedence).',
          required: true,
          schema: { type: 'string', example: 'Wed, 25 Nov 2026 06:00:00 GMT' },
        },
      },
      content: { 'application/atom+xml': { schema: z.string() } },
    },
    ...errorResponses(400, 503),
  },
});

const streamRoute = createRoute({
  operationId: 'streamChanges',
  method: 'get',
  path: STREAM_PATH,
  tags: ['Changes'],
  summary: 'Server-Sent Events: each newly published build\'s matching changes, as they are served',
  request: { query: ChangeFilterQuery },
  responses: {
    200: {
      description:
        'An event stream (`text/event-stream`): one event per matching change (`id` its change_id, `data` the change as in `/changes`); when it opens and after each build it has caught up to, a block with only an `id` (that build\'s id, no event), so that a reconnecting EventSource resumes after that build even when no change matched; a `: heartbeat` comment every 25 s. Resumes after `Last-Event-ID` (a change_id or a build id) from the served history; a build newer than the served snapshot is not sent again. At most 5 open streams per caller (then 429).',
      content: { 'text/event-stream': { schema: z.string() } },
    },
    ...errorResponses(400, 503),
  },
});

function register(app: ApiApp, config: ApiConfig): void {
  app.openapi(atomRoute, async (c) => {
    const query = parseQuery(c, AtomQuery);
    const snapshot = c.get('snapshot');
    const limit = query.limit ?? 50;
    const page = await readingTables(() => listChanges(snapshot, { filter: filterOfQuery(query), limit, ...(query.cursor ? { after: query.cursor } : {}) }));
    // Links to the public name (`--public-url`) behind a proxy, else to the origin asked.
    const base = config.publicUrl ?? new URL(c.req.url).origin;
    const feedUrl = canonicalFeedUrl(base, query as Record<string, unknown>);
    // A page past the first, and the next one (RFC 5005 paging: a build's changes beyond one page
    // are reachable, not silently cut).
    const pageUrl = (cursor: string) => `${feedUrl}${feedUrl.includes('?') ? '&' : '?'}limit=${limit}&cursor=${cursor}`;
    const body = renderAtom(page.changes, {
      id: feedUrl,
      selfUrl: query.cursor ? pageUrl(encodeCursor(query.cursor)) : feedUrl,
      nextUrl: page.next ? pageUrl(encodeCursor(page.next)) : null,
      origin: base,
      snapshot,
    });
    // Last-Modified for the feed readers that send If-Modified-Since rather than If-None-Match.
    const updated = Date.parse(feedUpdated(page.changes, snapshot));
    const headers = { 'Cache-Control': CACHE_CONTROL.snapshot, 'Last-Modified': new Date(updated).toUTCString() };
    if (notModifiedSince(c, updated)) return asRouteResponse(c.body(null, 304, { ...headers, ETag: etagOf(body) }));
    return asRouteResponse(c.body(body, 200, { ...headers, 'Content-Type': 'application/atom+xml; charset=utf-8' }));
  });

  app.openapi(streamRoute, async (c) => asRouteResponse(await openStream(c, config)));
}

/** The headers hono's streamSSE gives an event stream (but the hop-by-hop Connection and Transfer-Encoding). */
const SSE_HEADERS = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' } as const;

async function openStream(c: Context<ApiEnv>, config: ApiConfig): Promise<Response> {
  const filter: ChangeFilter = filterOfQuery(parseQuery(c, ChangeFilterQuery));
  const store = config.store;
  const current = store.current;
  if (!current) throw noSnapshot(store.openFailure);
  const caller = config.callers.resolve(c.env?.incoming?.socket?.remoteAddress, () => c.req.header('x-forwarded-for'));
  // HEAD: the headers of the GET below, without opening a stream.
  if (c.req.method === 'HEAD') return c.body(null, 200, { ...SSE_HEADERS, 'X-Accel-Buffering': 'no' });

  let end: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => (end = resolve));
  const release = config.streams.open(caller, () => end());
  if (!release) throw streamBoundRefusal(config.streams.maxPerCaller);

  // Last-Event-ID is a change (an event's id) or a build (a position block's, positionBlock).
  // A change resumes after it, found in the current snapshot's history; a build resumes after
  // it, that snapshot's history permitting; a build newer than the snapshot is where the client
  // already is (it came from a replica serving a newer snapshot): nothing up to it is sent. A
  // change the history does not hold may be one of a newer build too, so it is looked for in the
  // next snapshot swapped in (`unresolved`), and no position is sent before (it would replace
  // the client's). Otherwise: after the current build.
  const lastEventId = c.req.header('last-event-id')?.trim();
  let position = endOfBuild(current.buildId);
  let resumeFrom: ChangePosition | null = null;
  let unresolved: string | null = null;
  let note: string | null = null;
  if (lastEventId && /^[0-9a-f]{24}$/.test(lastEventId)) {
    const releaseCurrent = retainOrNull(current);
    try {
      resumeFrom = releaseCurrent ? await positionOfChange(current, lastEventId) : null;
    } finally {
      releaseCurrent?.();
    }
    if (!resumeFrom) {
      unresolved = lastEventId;
      note = `Last-Event-ID is not in the 90-day history of snapshot ${current.buildId}; sending new changes only (after it, if a newer snapshot holds it)`;
    }
  } else if (lastEventId && buildTimeOf(lastEventId) !== null) {
    if (lastEventId >= current.buildId) {
      position = endOfBuild(lastEventId);
      if (lastEventId > current.buildId) note = `resuming after build ${lastEventId}, newer than this replica's snapshot: its changes are not sent again`;
    } else if (historyReaches(current, buildTimeOf(lastEventId)!)) {
      resumeFrom = endOfBuild(lastEventId);
    } else {
      note = 'Last-Event-ID is not in the 90-day history; sending new changes only';
    }
  }

  // streamSSE sets SSE_HEADERS itself (a Cache-Control set before it would be overwritten).
  c.header('X-Accel-Buffering', 'no');
  return streamSSE(c, async (stream) => {
    let work = Promise.resolve();
    /** The build of the last position block sent (the client's Last-Event-ID until an event). */
    let positionSent: string | null = null;
    const sendPosition = async () => {
      if (position.change_id !== '~' || position.build_id === positionSent || buildTimeOf(position.build_id) === null) return;
      await stream.write(positionBlock(position.build_id));
      positionSent = position.build_id;
    };
    /** Sends what `snapshot` holds after the stream's position, oldest first, then the position. */
    const catchUp = (snapshot: ServingSnapshot) => {
      work = work.then(async () => {
        try {
          for (;;) {
            if (stream.aborted || stream.closed) return;
            // Retained while it is read, not while it is written: a write waits as long as the
            // client does not read (forever, for one that never does), and a snapshot held across
            // it stayed open after its replacement, with its files and memory. Closed meanwhile,
            // the newer snapshot's swap sends the rest from its own history.
            const releaseSnapshot = retainOrNull(snapshot);
            if (!releaseSnapshot) return;
            let batch: ChangeRow[];
            try {
              if (unresolved) {
                // Looked for in the first snapshot swapped in only: not there either, it has aged
                // out (or is of a build further on, which a replica reaches in one swap unless
                // builds are published faster than it opens them).
                const found = await positionOfChange(snapshot, unresolved);
                unresolved = null;
                if (found && isAfter(found, position)) position = found;
              }
              batch = await changesInStreamOrder(snapshot, filter, { after: position }, STREAM_BATCH);
            } finally {
              releaseSnapshot();
            }
            for (const change of batch) {
              await stream.writeSSE({ id: change.change_id, data: JSON.stringify(changeJson(change)) });
              position = { build_id: change.build_id, change_id: change.change_id };
            }
            if (batch.length < STREAM_BATCH) break;
          }
          // Past everything this snapshot holds, matched or not; the client is told so.
          if (snapshot.buildId >= position.build_id) position = endOfBuild(snapshot.buildId);
          await sendPosition();
        } catch (err) {
          config.logger.warn({ err: (err as Error).message, buildId: snapshot.buildId }, 'change stream could not read the snapshot');
        }
      });
    };
    const unsubscribe = store.onSwap(catchUp);
    const heartbeat = setInterval(() => void stream.write(': heartbeat\n\n').catch(() => end()), config.streams.heartbeatMs);
    stream.onAbort(() => end());
    try {
      await stream.write(`: stream of changes after snapshot ${current.buildId}\nretry: 10000\n\n`);
      if (note) await stream.write(`: ${note}\n\n`);
      if (resumeFrom) {
        position = resumeFrom;
        catchUp(current);
      } else if (!unresolved) {
        // The position at once: a client dropped before the first event resumes from it.
        await sendPosition();
      }
      // A swap between the request and this point is caught up too.
      if (store.current && store.current !== current) catchUp(store.current);
      await ended;
    } finally {
      clearInterval(heartbeat);
      unsubscribe();
      release();
      await work.catch(() => undefined);
    }
  });
}

export const pulseFeedRoutes: RouteModule = { name: 'pulse-feeds', register };
