/**
 * The methods of each /pulse/api path (PULSE §4), as the OpenAPI document declares them: an
 * OPTIONS answer's `Allow` lists them, and any other method is 405 METHOD_NOT_ALLOWED with the
 * same `Allow` (RFC 9110 §15.5.6), not a 404 that says the path does not exist.
 */
import { type ApiError, methodNotAllowedHere } from '../http/errors.ts';

/** Hono path patterns and the methods each takes (HEAD comes with GET, OPTIONS with every path). */
export const PULSE_API_METHODS: readonly (readonly [pattern: string, methods: readonly string[]])[] = [
  ['/pulse/api/subscriptions', ['POST']],
  ['/pulse/api/subscriptions/:token', ['GET', 'PATCH', 'DELETE']],
  ['/pulse/api/subscriptions/:token/pause', ['POST']],
  ['/pulse/api/subscriptions/:token/resume', ['POST']],
  ['/pulse/api/subscriptions/:token/deliveries', ['GET']],
  ['/pulse/api/confirm/:token', ['POST']],
  ['/pulse/api/preview', ['POST']],
];

const MATCHERS = PULSE_API_METHODS.map(([pattern, methods]) => ({
  regex: new RegExp(`^${pattern.replace(/:\w+/g, '[^/]+')}$`),
  allow: [...methods.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])), 'OPTIONS'].join(', '),
}));

/** The `Allow` value of a /pulse/api path, or undefined for any other path. */
export function pulseApiAllow(path: string): string | undefined {
  return MATCHERS.find((m) => m.regex.test(path))?.allow;
}

/** The 405 of a method `path` does not take (`path` must be one of PULSE_API_METHODS). */
export function pulseMethodNotAllowed(method: string, path: string): ApiError {
  return methodNotAllowedHere(method, pulseApiAllow(path)!);
}
