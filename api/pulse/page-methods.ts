/**
 * The methods of each /pulse page path. An OPTIONS answer's `Allow` lists them (the subscribe,
 * confirm, manage and unsubscribe pages take POST too), and any other method is a 405 with the
 * same `Allow` (RFC 9110 §15.5.6), as on /api and /pulse/api — not a 404 saying there is no page
 * at a path that has one.
 */

/** Hono path patterns, the methods each takes, and whether it exists only with a pulse service. */
export const PULSE_PAGE_METHODS: readonly (readonly [pattern: string, methods: readonly string[], withService: 'always' | 'service'])[] = [
  ['/pulse', ['GET'], 'always'],
  ['/pulse/assets/:file', ['GET'], 'always'],
  ['/pulse/cves', ['GET'], 'always'],
  ['/pulse/cves/:id', ['GET'], 'always'],
  ['/pulse/advisories', ['GET'], 'always'],
  ['/pulse/advisories/:vendor/:id', ['GET'], 'always'],
  ['/pulse/suggest', ['GET'], 'always'],
  ['/pulse/subscribe', ['GET'], 'always'],
  ['/pulse/subscribed/:id', ['GET'], 'service'],
  ['/pulse/confirm/:token', ['GET', 'POST'], 'service'],
  ['/pulse/s/:token', ['GET', 'POST'], 'service'],
  ['/pulse/s/:token/unsubscribe', ['GET', 'POST'], 'service'],
  ['/pulse/unsubscribed', ['GET'], 'service'],
];

/** With a pulse service, the subscribe page takes its form's POST. */
const SERVICE_EXTRA: Readonly<Record<string, readonly string[]>> = { '/pulse/subscribe': ['POST'] };

function allowOf(methods: readonly string[]): string {
  return [...methods.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])), 'OPTIONS'].join(', ');
}

/** Each page pattern served (with or without a pulse service) and its `Allow`. */
export function pulsePagePatterns(withService: boolean): { pattern: string; allow: string }[] {
  return PULSE_PAGE_METHODS.filter(([, , needs]) => needs === 'always' || withService).map(([pattern, methods]) => ({
    pattern,
    allow: allowOf(withService ? [...methods, ...(SERVICE_EXTRA[pattern] ?? [])] : methods),
  }));
}

/** The `Allow` of a /pulse page path, or undefined for any other path. */
export function pulsePageAllow(withService: boolean): (path: string) => string | undefined {
  const matchers = pulsePagePatterns(withService).map(({ pattern, allow }) => ({ regex: new RegExp(`^${pattern.replace(/:\w+/g, '[^/]+')}$`), allow }));
  return (path) => matchers.find((m) => m.regex.test(path))?.allow;
}
