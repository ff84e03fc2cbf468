/**
 * How a /pulse page is answered: HTML with a strict Content-Security-Policy (scripts and styles
 * from this server only; no inline script), an ETag per snapshot computed before rendering (a
 * revalidation costs no rendering), and the HTML error pages (404, 400 naming the filter, 503).
 */
import type { Context } from 'hono';
import { conditionalTag, etagOf, ifNoneMatchHits, CACHE_CONTROL, defaultCacheControl } from '../http/respond.ts';
import { BIDI_CONTROLS } from '../../lib/html.ts';
import { ASSETS_VERSION } from './assets.ts';

export const HTML_TYPE = 'text/html; charset=utf-8';

/** A page's own headers; those of every answer (nosniff among them) are standardHeaders' (ANSWER_HEADERS). */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'Referrer-Policy': 'same-origin',
};

/** A page that cannot be shown: rendered as an HTML page with this status. */
export class PageError extends Error {
  readonly status: 400 | 403 | 404 | 503;
  readonly title: string;
  /** The filter or field at fault (400). */
  readonly parameter: string | undefined;

  constructor(status: 400 | 403 | 404 | 503, title: string, message: string, parameter?: string) {
    super(message);
    this.name = 'PageError';
    this.status = status;
    this.title = title;
    this.parameter = parameter;
  }
}

/**
 * The ETag of a page read from one snapshot: a function of the snapshot, the server's assets
 * and the request's path and query, so it is known before the page is rendered.
 */
export function snapshotPageEtag(c: Context, buildId: string): string {
  const url = new URL(c.req.url);
  return `W/${etagOf(`${buildId}\n${ASSETS_VERSION}\n${url.pathname}?${url.searchParams.toString()}`)}`;
}

/** 304 when the request already holds this ETag. */
export function notModified(c: Context, etag: string): Response | null {
  if (!ifNoneMatchHits(conditionalTag(c), etag)) return null;
  return c.body(null, 304, { ETag: etag, 'Cache-Control': CACHE_CONTROL.snapshot });
}

export interface PageSendOptions {
  status?: number;
  etag?: string;
  cacheControl?: string;
}

export function sendPage(c: Context, html: string, opts: PageSendOptions = {}): Response {
  const status = opts.status ?? 200;
  const headers: Record<string, string> = {
    ...PAGE_HEADERS,
    'Content-Type': HTML_TYPE,
    'Cache-Control':
      opts.cacheControl ?? defaultCacheControl(status),
    ETag: opts.etag ?? etagOf(html),
    // Stated here, not left to Node's framing of the body: Hono drops a HEAD's body before
    // Node sees it, and a HEAD carries its GET's headers (docs/api.md).
    'Content-Length': String(Buffer.byteLength(html)),
  };
  return c.body(html, status as 200, headers);
}

/**
 * Control characters HTML forbids (all of C0 but tab, line feed, form feed and carriage return,
 * and DEL): upstream text carries some (a description's BEL or VT), which browsers draw as boxes.
 * With them the bidirectional controls (lib/html.ts BIDI_CONTROLS), which would show a title or
 * a description reordered: every page passes through here.
 */
const HTML_FORBIDDEN = new RegExp(`[\\u0000-\\u0008\\u000b\\u000e-\\u001f\\u007f${BIDI_CONTROLS}]`, 'g');

/** A JSX tree as a complete HTML document. */
export async function documentOf(tree: unknown): Promise<string> {
  return `<!doctype html>${String(await (tree as { toString(): string | Promise<string> }).toString()).replace(HTML_FORBIDDEN, '')}`;
}
