/**
 * What every operation of the OpenAPI document shares, declared once here rather than in each
 * route module, so a route added later gets it without a line of its own:
 *   - 304 on GET (a matching `If-None-Match`, api/http/respond.ts): no body, the `ETag` (not on
 *     the event stream, which has no entity tag);
 *   - 429 (api/ratelimit): the RateLimitError body, `Retry-After` and `X-RateLimit-*`;
 *   - 400, 408 and 431 (api/http/client-errors.ts), answered before any routing: a request that
 *     is not valid HTTP (MALFORMED_REQUEST), one that never arrived in full (REQUEST_TIMEOUT),
 *     a request head too large for Node's parser;
 *   - 500 INTERNAL (api/app.ts), possible anywhere;
 *   - 503 on every path under /api/v1/public (retainSnapshot: NO_SNAPSHOT; a table that could
 *     not be read: SNAPSHOT_TABLE_UNAVAILABLE), and under /pulse/api (the subscription store
 *     cannot be reached: SERVICE_UNAVAILABLE);
 *   - 400 on every operation that takes a parameter (the validation hook of api/app.ts);
 *   - the standard headers of a successful answer (`ETag` but on the event stream, `X-Snapshot`,
 *     `Cache-Control`, and the per-second `X-RateLimit-*` when rate limiting is on);
 *   - an `operationId` derived from the method and path when the route gives none.
 * A response a route declares itself (e.g. its own 400 description) is kept as it is.
 */
import { z } from '@hono/zod-openapi';
import type { ApiApp } from './http/context.ts';
import { ErrorSchema } from './routes/cves-schemas.ts';

const PUBLIC_PREFIX = '/api/v1/public';

export const RateLimitErrorSchema = ErrorSchema.extend({
  code: z.literal('RATE_LIMIT_EXCEEDED'),
  retry_after: z.number().int().min(1).openapi({ description: 'Seconds to wait, as in `Retry-After`.' }),
  limit: z.number().int().openapi({ description: 'The number of requests that was exceeded in the window (scope `streams`: of event streams open at once; `pulse_create_per_*`: of subscriptions created).' }),
  window: z.string().openapi({ description: 'The window of that limit: `60s` or `1s`; `open` for scope `streams` (streams open at once, no time window); `3600s` for the subscription creation limits (clock hours).', example: '60s' }),
  scope: z.enum(['minute', 'second', 'burst', 'streams', 'pulse_create_per_caller', 'pulse_create_per_address']).openapi({
    description:
      'Which limit refused: the per-minute ceiling, the per-second limit, the burst cap, (`/pulse/stream`) the bound on one caller\'s open event streams, or (creating a subscription) the hourly creations per caller or per e-mail address / webhook URL.',
  }),
}).openapi('RateLimitError');

const stringHeader = (description: string, example?: string) => ({
  description,
  schema: { type: 'string', ...(example !== undefined ? { example } : {}) },
});
const integerHeader = (description: string) => ({ description, schema: { type: 'integer', minimum: 0 } });

/** Every header the shared declarations name, by its name on the wire. */
const HEADERS: Record<string, object> = {
  ETag: stringHeader('Strong (or, on the NDJSON export, weak) entity tag of the body; send it back in `If-None-Match` to get 304.', '"q0m1bL3hLz8oKc4kS0wYbWq9t8E"'),
  'X-Snapshot': stringHeader('Build id of the snapshot that answered (`none` without one).'),
  'Cache-Control': stringHeader('How long the answer may be cached.', 'public, max-age=300'),
  'Retry-After': integerHeader('Whole seconds to wait before retrying.'),
  'X-RateLimit-Limit': integerHeader('Requests allowed in the window (per second on admitted answers; the exceeded limit on a 429).'),
  'X-RateLimit-Remaining': integerHeader('Requests left in the window.'),
  'X-RateLimit-Reset': integerHeader('Seconds until the window ends.'),
  'X-RateLimit-Window': stringHeader('Length of the window: `1s` or `60s` (`open` on the 429 of the open-stream bound of `/pulse/stream`, `3600s` on that of the subscription creation limits).', '1s'),
};

/**
 * A response's `headers`. Inline Header Objects, not $refs: `required` differs by response (the
 * X-RateLimit-* headers are required on a 429, present on other answers only when rate limiting
 * is on), and a Reference Object cannot carry it.
 */
function headers(required: readonly string[], optional: readonly string[] = []): Record<string, object> {
  const out: Record<string, object> = {};
  for (const name of required) out[name] = { ...HEADERS[name], required: true };
  for (const name of optional) out[name] = { ...HEADERS[name] };
  return out;
}

const RATE_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-RateLimit-Window'] as const;

const errorContent = (schema: string) => ({ 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } });

/** components.responses shared by every operation. */
const RESPONSES: Record<string, object> = {
  NotModified: {
    description: 'Not modified: the request\'s `If-None-Match` holds the current `ETag`. No body.',
    headers: headers(['ETag', 'X-Snapshot', 'Cache-Control']),
  },
  InvalidParameter: {
    description:
      'A parameter is malformed, out of range or given twice (INVALID_PARAMETER, naming it in `parameter`); or, answered before any routing, the request is not valid HTTP (MALFORMED_REQUEST: a raw non-ASCII byte in the URL, no `Host`).',
    headers: headers(['X-Snapshot']),
    content: errorContent('Error'),
  },
  RateLimited: {
    description: 'Rate limit exceeded (RATE_LIMIT_EXCEEDED, docs/rate-limits.md). Never cached (`Cache-Control: no-store`).',
    headers: headers(['Retry-After', ...RATE_HEADERS]),
    content: errorContent('RateLimitError'),
  },
  MalformedRequest: {
    description: 'The request is not valid HTTP (MALFORMED_REQUEST, with the parser\'s `reason`: a raw non-ASCII byte in the URL, no `Host`), answered before any routing.',
    headers: headers(['X-Snapshot']),
    content: errorContent('Error'),
  },
  RequestTimeout: {
    description: 'The request did not arrive in full in time (REQUEST_TIMEOUT), answered before any routing; the connection is closed.',
    headers: headers(['X-Snapshot']),
    content: errorContent('Error'),
  },
  RequestHeadersTooLarge: {
    description: 'The request line and headers exceed the server\'s limit (16 KB by default): REQUEST_HEADERS_TOO_LARGE, answered before any routing.',
    headers: headers(['X-Snapshot']),
    content: errorContent('Error'),
  },
  CrossSiteRequest: {
    description: 'A browser sent this write from a page of another site (CROSS_SITE_REQUEST, told by `Sec-Fetch-Site` or `Origin`); programs calling the API send neither and are not refused.',
    content: errorContent('Error'),
  },
  SubscriptionsUnavailable: {
    description: 'The subscription store cannot be reached right now (SERVICE_UNAVAILABLE); nothing was changed, retry later.',
    content: errorContent('Error'),
  },
  Internal: {
    description: 'Internal error (INTERNAL); logged, retrying may succeed.',
    content: errorContent('Error'),
  },
  Unavailable: {
    description: 'No snapshot is published yet (NO_SNAPSHOT), or a snapshot table this answer needs could not be read (SNAPSHOT_TABLE_UNAVAILABLE).',
    headers: headers(['X-Snapshot']),
    content: errorContent('Error'),
  },
};

const METHODS = ['get', 'head', 'put', 'post', 'delete', 'options', 'patch', 'trace'] as const;

interface Operation {
  operationId?: string;
  parameters?: unknown[];
  responses?: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

function pascal(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}

/** `get /api/v1/public/cves/{id}/related` → `getCvesByIdRelated`. */
export function deriveOperationId(method: string, path: string): string {
  const rest = path.startsWith(PUBLIC_PREFIX) ? path.slice(PUBLIC_PREFIX.length) : path;
  const words = rest
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith('{') ? `By${pascal(segment.slice(1, -1))}` : pascal(segment)));
  return method + words.join('');
}

/** Registers the schemas the shared responses name (call before generating the document). */
export function registerSharedSchemas(app: ApiApp): void {
  app.openAPIRegistry.register('Error', ErrorSchema);
  app.openAPIRegistry.register('RateLimitError', RateLimitErrorSchema);
}

/** Whether the operation's success is a Server-Sent Events stream (`/pulse/stream`). */
function isEventStream(responses: Record<string, Record<string, unknown>>): boolean {
  const content = responses['200']?.content as Record<string, unknown> | undefined;
  return content !== undefined && Object.keys(content).length === 1 && 'text/event-stream' in content;
}

/** Adds the shared declarations to a generated document (a fresh copy; the input is not kept). */
export function withSharedDeclarations(document: Record<string, unknown>): Record<string, unknown> {
  const doc = structuredClone(document) as {
    paths?: Record<string, Record<string, Operation>>;
    components?: Record<string, Record<string, unknown>>;
  } & Record<string, unknown>;
  const components = (doc.components ??= {});
  components.responses = { ...RESPONSES, ...components.responses };

  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      op.operationId ??= deriveOperationId(method, path);
      const responses = (op.responses ??= {});
      const stream = isEventStream(responses);
      for (const [status, response] of Object.entries(responses)) {
        if (!/^2\d\d$/.test(status) || '$ref' in response) continue;
        // An event stream has no entity tag (it is live, never the same twice): no ETag, no 304.
        const standard = stream ? headers(['X-Snapshot', 'Cache-Control'], RATE_HEADERS) : headers(['ETag', 'X-Snapshot', 'Cache-Control'], RATE_HEADERS);
        response.headers = { ...standard, ...(response.headers as object | undefined) };
      }
      const add = (status: string, ref: string) => {
        responses[status] ??= { $ref: `#/components/responses/${ref}` };
      };
      // Conditional requests are GET's (and HEAD's): an unsafe method ignores If-None-Match.
      if (method === 'get' && !stream) add('304', 'NotModified');
      add('400', (op.parameters?.length ?? 0) > 0 ? 'InvalidParameter' : 'MalformedRequest');
      add('408', 'RequestTimeout');
      add('429', 'RateLimited');
      add('431', 'RequestHeadersTooLarge');
      add('500', 'Internal');
      if (path.startsWith(`${PUBLIC_PREFIX}/`)) add('503', 'Unavailable');
      if (path.startsWith('/pulse/api/')) {
        add('503', 'SubscriptionsUnavailable');
        if (method !== 'get') add('403', 'CrossSiteRequest');
      }
      // Status order, as readers expect.
      op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
    }
  }
  return doc;
}
