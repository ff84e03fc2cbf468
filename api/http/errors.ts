/**
 * The API's errors (DESIGN §6): a JSON body `{"code", "message", …}` with a stable code per
 * condition. Handlers throw ApiError; the app's error handler turns it into the response, and
 * turns anything else into 500 INTERNAL without a stack (the stack goes to the log).
 */
export type ErrorCode =
  | 'INVALID_PARAMETER'
  | 'VENDOR_FILTER_NOT_ALLOWED'
  | 'REVERSE_NOT_ALLOWED'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'MALFORMED_REQUEST'
  | 'REQUEST_TIMEOUT'
  | 'REQUEST_HEADERS_TOO_LARGE'
  | 'RATE_LIMIT_EXCEEDED'
  | 'NO_SNAPSHOT'
  | 'SNAPSHOT_TABLE_UNAVAILABLE'
  | 'SERVICE_UNAVAILABLE'
  | 'CROSS_SITE_REQUEST'
  | 'INTERNAL';

export const ERROR_STATUS: Record<ErrorCode, 400 | 403 | 404 | 405 | 408 | 429 | 431 | 500 | 503> = {
  INVALID_PARAMETER: 400,
  VENDOR_FILTER_NOT_ALLOWED: 400,
  REVERSE_NOT_ALLOWED: 400,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  MALFORMED_REQUEST: 400,
  REQUEST_TIMEOUT: 408,
  REQUEST_HEADERS_TOO_LARGE: 431,
  RATE_LIMIT_EXCEEDED: 429,
  NO_SNAPSHOT: 503,
  SNAPSHOT_TABLE_UNAVAILABLE: 503,
  SERVICE_UNAVAILABLE: 503,
  CROSS_SITE_REQUEST: 403,
  INTERNAL: 500,
};

/** Body of every error response. Extra members depend on the code (e.g. `parameter`). */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  [member: string]: unknown;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly extra: Record<string, unknown>;
  /** Headers the response must carry (e.g. `Allow` on a 405). */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.extra = extra;
    this.headers = headers;
  }

  body(): ErrorBody {
    return { code: this.code, message: this.message, ...this.extra };
  }
}

/**
 * What the first issue of a failed zod parse says: the parameter it names (`fallback` when it
 * names none) and a message starting with that name.
 */
export function firstIssue(issues: readonly { path: readonly PropertyKey[]; message: string }[], fallback: string): { parameter: string; message: string } {
  const issue = issues[0];
  const parameter = issue && issue.path.length > 0 ? String(issue.path[0]) : fallback;
  return { parameter, message: `${parameter}: ${issue?.message ?? 'malformed'}` };
}

/** 400 naming the parameter that is malformed or out of range. */
export function invalidParameter(parameter: string, message: string): ApiError {
  return new ApiError('INVALID_PARAMETER', message, { parameter });
}

export function notFound(message: string): ApiError {
  return new ApiError('NOT_FOUND', message);
}

export const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';

export function methodNotAllowed(method: string): ApiError {
  return new ApiError(
    'METHOD_NOT_ALLOWED',
    `Method ${method} is not allowed: this API is read-only (GET and HEAD; OPTIONS for CORS preflight).`,
    { method, allowed: ALLOWED_METHODS.split(', ') },
    { Allow: ALLOWED_METHODS },
  );
}

/**
 * A 429 of a limit outside the rate limiter (the open-stream bound, the subscription creation
 * limits): the RateLimited answer the document declares on every operation, its body and
 * X-RateLimit-* headers about the limit that refused, as the limiter's own refusals
 * (api/ratelimit/responses.ts refusalResponse).
 */
export function rateLimited(message: string, limit: { retryAfter: number; limit: number; window: string; scope: string }): ApiError {
  const retryAfter = String(limit.retryAfter);
  return new ApiError(
    'RATE_LIMIT_EXCEEDED',
    message,
    { retry_after: limit.retryAfter, limit: limit.limit, window: limit.window, scope: limit.scope },
    { 'Retry-After': retryAfter, 'X-RateLimit-Limit': String(limit.limit), 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': retryAfter, 'X-RateLimit-Window': limit.window },
  );
}

/** 405 for a path that takes other methods than the read API's (the /pulse subscription API). */
export function methodNotAllowedHere(method: string, allow: string): ApiError {
  return new ApiError('METHOD_NOT_ALLOWED', `Method ${method} is not allowed here: ${allow}.`, { method, allowed: allow.split(', ') }, { Allow: allow });
}

/**
 * 503 NO_SNAPSHOT. With `failure` (the store's openFailure), a snapshot is published but this
 * server could not open it: saying "none is published yet, run a build" sent the operator to
 * rebuild what was there.
 */
export function noSnapshot(failure?: { buildId: string | null } | null): ApiError {
  return new ApiError('NO_SNAPSHOT', noSnapshotMessage(failure));
}

/** The text of NO_SNAPSHOT (the pages' 503 says the same). */
export function noSnapshotMessage(failure?: { buildId: string | null } | null): string {
  if (!failure) return 'No snapshot is published yet: run `vulnintel build` (or `vulnintel update`); the server picks it up without a restart.';
  const what = failure.buildId === null ? 'The file naming the published snapshot (CURRENT) could not be read' : `The published snapshot ${failure.buildId} could not be opened`;
  return `${what}, and no earlier one is served: see /api/v1/health and the server's log. The server tries again every 30 s and serves it, or a newer one, as soon as it opens.`;
}

export function internalError(): ApiError {
  return new ApiError('INTERNAL', 'Internal error. The request was logged; retrying may succeed.');
}
