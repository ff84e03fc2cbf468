/**
 * A write to /pulse (creating, editing, confirming a subscription; the subscription API and the
 * web area's forms) sent by a browser from another site is refused. Otherwise any page could make
 * its visitors' browsers create subscriptions (confirmation mails to addresses it chooses, pings
 * to its webhooks) from their own addresses, each visitor a new caller for the creation limits
 * (classic CSRF; the API's CORS `*` and a plain form both allow the request to be sent).
 *
 * The browser says where a request comes from: `Sec-Fetch-Site` (every current browser), else
 * `Origin`, compared with the request's own host (and `--public-url`'s, behind a proxy that
 * rewrites Host). A request with neither — curl, a script, a mail provider's RFC 8058 one-click
 * unsubscribe — is no browser acting for someone else and goes through.
 *
 * The unsubscribe link is exempt: its token is the whole authority (a page elsewhere cannot
 * know it, so cannot forge the request), and the RFC 8058 one-click POST may come from a mail
 * client's own page on another site (a webmail's "Unsubscribe" button). Refusing it left the
 * subscriber subscribed while the mail client said they were not.
 */
import type { Context } from 'hono';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const UNSUBSCRIBE_LINK = /^\/pulse\/s\/[^/]+\/unsubscribe$/;

/** True when `c` is a write a browser sent from another site. */
export function isCrossSiteWrite(c: Context, publicUrl: string | undefined): boolean {
  if (!WRITES.has(c.req.method) || UNSUBSCRIBE_LINK.test(c.req.path)) return false;
  const site = c.req.header('sec-fetch-site');
  // same-origin, same-site (a sibling subdomain of the operator's) and none (typed, bookmarked).
  if (site !== undefined) return site === 'cross-site';
  const origin = c.req.header('origin');
  if (origin === undefined) return false;
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    return true; // `null` (a sandboxed frame, a file) or junk: not this site
  }
  const own = [c.req.header('host'), publicUrl ? new URL(publicUrl).host : undefined];
  return !own.some((host) => host !== undefined && host.toLowerCase() === originHost.toLowerCase());
}
