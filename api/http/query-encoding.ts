/**
 * Query strings (and path parameters, below) whose percent-encoding does not decode to UTF-8
 * text (`?search=%FF`, `?q=%ED%A0%80`, a lone surrogate's bytes) are refused with a 400 naming
 * the parameter. Hono keeps such a value as the raw characters it was sent as (`%FF` stays the
 * three characters `%FF`), so a search for the byte 0xFF looked for the word "ff" and answered
 * CVEs that happened to hold it. A `%` not followed by two hex digits is not an escape and
 * stays itself, as the WHATWG URL standard's form-urlencoded parser reads it (`?search=100%`
 * is "100%").
 */
const UTF8 = new TextDecoder('utf-8', { fatal: true });
const ESCAPES = /(?:%[0-9A-Fa-f]{2})+/g;

/** The text of `raw` ('+' a space, escapes decoded), or null when the escapes are not UTF-8. */
function decodeQueryPart(raw: string): string | null {
  return decodeEscapes(raw.replaceAll('+', ' '));
}

/** `raw` with its escapes decoded, or null when they are not UTF-8. */
function decodeEscapes(raw: string): string | null {
  if (!raw.includes('%')) return raw;
  let malformed = false;
  const text = raw.replace(ESCAPES, (run) => {
    const bytes = new Uint8Array(run.length / 3);
    for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(run.slice(i * 3 + 1, i * 3 + 3), 16);
    try {
      return UTF8.decode(bytes);
    } catch {
      malformed = true;
      return '';
    }
  });
  return malformed ? null : text;
}

/** What a parameter that is not UTF-8 text once percent-decoded is told. */
function notUtf8(name: string): string {
  return `${name}: not UTF-8 text once percent-decoded (send text as UTF-8 bytes, each escaped as %XX)`;
}

/** A parameter of the query whose name or value is not UTF-8 text, and what to say about it. */
export interface MalformedParameter {
  parameter: string;
  message: string;
}

/** The first parameter of `url`'s query that does not decode to UTF-8 text, or null. */
export function malformedQueryParameter(url: string): MalformedParameter | null {
  const start = url.indexOf('?');
  if (start < 0) return null;
  const end = url.indexOf('#', start);
  const query = url.slice(start + 1, end < 0 ? undefined : end);
  if (!query.includes('%')) return null;
  for (const pair of query.split('&')) {
    if (!pair.includes('%')) continue;
    const eq = pair.indexOf('=');
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    const name = decodeQueryPart(rawName);
    // A name that is not text is named as sent (at most 64 characters of it).
    if (name === null) return { parameter: rawName.slice(0, 64), message: `the parameter name ${JSON.stringify(rawName.slice(0, 64))} is not UTF-8 text once percent-decoded` };
    if (eq >= 0 && decodeQueryPart(pair.slice(eq + 1)) === null) {
      return { parameter: name, message: notUtf8(name) };
    }
  }
  return null;
}

/**
 * The same of a path parameter: Hono keeps a path segment whose escapes are not UTF-8 as sent
 * too, so `/packages/PyPI/%C0%AF` answered for a package named "%C0%AF" and
 * `/vendor-advisories/redhat/%FF` looked for an advisory "%FF". `routes` are the app's (paths
 * such as `/cves/:id`); the malformed segment is named by the parameter of the route whose other
 * segments the path matches. Null when every segment is text, or when no route takes a
 * parameter there (the path is answered 404 as any unknown path).
 */
export function malformedPathParameter(url: string, routes: readonly { path: string }[]): MalformedParameter | null {
  const pathname = new URL(url).pathname;
  if (!pathname.includes('%')) return null;
  const segments = pathname.split('/');
  const at = segments.findIndex((segment) => decodeEscapes(segment) === null);
  if (at < 0) return null;
  for (const { path } of routes) {
    const parts = path.split('/');
    if (parts.length !== segments.length || !parts[at]!.startsWith(':')) continue;
    if (parts.every((part, i) => part.startsWith(':') || part === segments[i])) {
      // `:name{regex}` and `:name?` are still the parameter `name`.
      const name = /^:(\w+)/.exec(parts[at]!)![1]!;
      return { parameter: name, message: notUtf8(name) };
    }
  }
  return null;
}
