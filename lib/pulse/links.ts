/**
 * The public links /pulse puts in messages and answers: built from `--public-url` (default
 * http://localhost:PORT), so a service behind a proxy links to its public name.
 */
import { parseOptionUrl } from '../option-url.ts';

export class PulseLinks {
  readonly base: string;

  constructor(publicUrl: string) {
    const url = parseOptionUrl('--public-url', publicUrl, ['http', 'https'], 'https://vuln.example.org');
    this.base = url.toString().replace(/\/+$/, '');
  }

  confirm(token: string): string {
    return `${this.base}/pulse/confirm/${token}`;
  }

  manage(token: string): string {
    return `${this.base}/pulse/s/${token}`;
  }

  /** RFC 8058 one-click target: POST with `List-Unsubscribe=One-Click`. */
  unsubscribe(token: string): string {
    return `${this.base}/pulse/s/${token}/unsubscribe`;
  }

  cve(cveId: string): string {
    return `${this.base}${cvePath(cveId)}`;
  }

  advisory(vendor: string, advisoryId: string): string {
    return `${this.base}${advisoryPath(vendor, advisoryId)}`;
  }
}

/** Path of a CVE's /pulse page: the one spelling the pages, feeds and messages link to. */
export function cvePath(cveId: string): string {
  return `/pulse/cves/${encodeURIComponent(cveId)}`;
}

/** Path of an advisory's /pulse page. */
export function advisoryPath(vendor: string, advisoryId: string): string {
  return `/pulse/advisories/${encodeURIComponent(vendor)}/${encodeURIComponent(advisoryId)}`;
}

export function defaultPublicUrl(port: number): string {
  return `http://localhost:${port}`;
}

/**
 * Paths whose segment after these prefixes is a capability token: whoever reads it can manage
 * or confirm the subscription (or, `subscribed/`, read a new webhook's secret once). Never
 * written to a log.
 */
const TOKEN_PATH = /(\/pulse\/(?:s|confirm|subscribed|api\/subscriptions|api\/confirm)\/)[^/?#]+/g;
/** A subscribe form's draft (its e-mail address or webhook URL) named in a query. */
const DRAFT_PARAM = /([?&]draft=)[^&#]+/g;

/** A URL or path with every capability token replaced by `<token>` (for logs). */
export function withoutTokens(url: string): string {
  return url.replace(TOKEN_PATH, '$1<token>').replace(DRAFT_PARAM, '$1<token>');
}
