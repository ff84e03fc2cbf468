/**
 * The /pulse/api endpoints in the OpenAPI document. Their handlers read and validate bodies
 * themselves (lib/pulse/input.ts: bounded, strict, errors naming the field), so they are
 * described here with the same zod schemas rather than validated by zod-openapi.
 */
import { z } from '@hono/zod-openapi';
import { CadenceField, EmailField, FilterSchema, UrlField } from '../../lib/pulse/input.ts';
import { CADENCES, CHANNELS } from '../../lib/pulse/types.ts';
import type { ApiApp } from '../http/context.ts';
import { ErrorSchema } from '../routes/cves-schemas.ts';

const TAG = 'Pulse subscriptions';
const token = z.string().openapi({ param: { name: 'token', in: 'path' }, description: 'The capability token of a manage (or confirm) link: 22 base64url characters.' });
const errors = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((s) => [
      s,
      {
        description: { 400: 'Bad input (INVALID_PARAMETER naming the field in `parameter`).', 404: 'Unknown or expired link, or a confirmation link already used: it confirms once and shows its manage link once (NOT_FOUND).', 503: 'The confirmation e-mail could not be sent, or the subscription store cannot be reached (SERVICE_UNAVAILABLE); nothing was stored.' }[s] ?? String(s),
        content: { 'application/json': { schema: ErrorSchema } },
      },
    ]),
  );

const Filter = FilterSchema.openapi('PulseFilter', { description: 'Any of these; an empty filter matches every change. Text members compare case-insensitively.' });
const Delivery = z
  .object({
    period: z.string().openapi({ description: '`build:<build_id>` (realtime) or `daily:YYYY-MM-DD` / `weekly:YYYY-Www`.' }),
    status: z.enum(['sending', 'sent', 'failed', 'abandoned']),
    changes: z.number().int(),
    attempts: z.number().int(),
    first_attempt_at: z.string(),
    last_attempt_at: z.string(),
    sent_at: z.string().nullable(),
    next_attempt_at: z.string().nullable(),
    error: z.string().nullable(),
  })
  .openapi('PulseDelivery');
const Subscription = z
  .object({
    channel: z.enum(CHANNELS),
    address: z.string(),
    cadence: z.enum(CADENCES),
    filter: Filter,
    status: z.enum(['pending', 'active', 'paused']),
    paused_reason: z.string().nullable(),
    created_at: z.string(),
    confirmed_at: z.string().nullable(),
    problem: z.string().nullable().openapi({ description: 'Deliveries failing or given up, in words.' }),
    deliveries: z.array(Delivery),
  })
  .openapi('PulseSubscription');
// One shape per channel, strict like the handler (lib/pulse/input.ts): what the document takes,
// the server takes, but for what no schema can say (a webhook that must answer its ping).
const CreateEmail = z
  .strictObject({
    channel: z.literal('email'),
    email: EmailField.openapi({ description: 'The address (a confirmation link is sent to it).' }),
    cadence: CadenceField,
    filter: Filter.optional(),
  })
  .openapi('PulseCreateEmail');
const CreateWebhook = z
  .strictObject({
    channel: z.literal('webhook'),
    url: UrlField.openapi({ description: 'An http(s) URL that must answer a signed ping with 2xx. Internal addresses are refused.' }),
    cadence: CadenceField,
    filter: Filter.optional(),
  })
  .openapi('PulseCreateWebhook');
/**
 * The creation's body as this server takes it: a server that sends no mail (no `--smtp`) refuses
 * the e-mail channel, so its document offers webhooks only (a client generating requests from
 * it would otherwise send what is always refused).
 */
function createBody(email: boolean) {
  return email ? z.discriminatedUnion('channel', [CreateEmail, CreateWebhook]).openapi('PulseCreate') : CreateWebhook;
}
const Created = z
  .object({
    subscription: Subscription,
    manage_url: z.string().nullable().openapi({ description: 'Webhooks: the manage link (keep it). E-mail: null; the link comes after confirming.' }),
    secret: z.string().nullable().openapi({ description: 'Webhooks: the signing secret, shown only here. Deliveries carry `X-Vulnintel-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.' }),
    confirmation: z.object({ sent_to: z.string(), expires_at: z.string() }).nullable(),
  })
  .openapi('PulseCreated');

/** `email`: whether this server sends mail (`--smtp`), so takes e-mail subscriptions. */
export function registerPulseOpenApi(app: ApiApp, { email }: { email: boolean }): void {
  const r = app.openAPIRegistry;
  const jsonOf = (schema: z.ZodType, description: string) => ({ description, content: { 'application/json': { schema } } });
  r.registerPath({
    method: 'post',
    path: '/pulse/api/subscriptions',
    tags: [TAG],
    summary: 'Create a subscription (filter + channel + cadence)',
    description: 'Limited to 10 creations per hour per caller and a few per e-mail address or webhook URL. Bodies are limited to 16 KiB; unknown members are refused.',
    request: { body: { content: { 'application/json': { schema: createBody(email) } }, required: true } },
    responses: { 201: jsonOf(Created, 'Created: webhooks are active at once, e-mail subscriptions once confirmed.'), ...errors(400, 503) },
  });
  r.registerPath({ method: 'get', path: '/pulse/api/subscriptions/{token}', tags: [TAG], summary: 'A subscription and its last deliveries', request: { params: z.object({ token }) }, responses: { 200: jsonOf(Subscription, 'The subscription.'), ...errors(404) } });
  r.registerPath({
    method: 'patch',
    path: '/pulse/api/subscriptions/{token}',
    tags: [TAG],
    summary: 'Change the filter and/or the cadence',
    request: {
      params: z.object({ token }),
      // Either or both; nothing else (strict like the handler).
      body: { content: { 'application/json': { schema: z.strictObject({ cadence: z.enum(CADENCES).optional(), filter: Filter.optional() }).openapi({ minProperties: 1 }) } }, required: true },
    },
    responses: { 200: jsonOf(Subscription, 'The changed subscription.'), ...errors(400, 404) },
  });
  r.registerPath({ method: 'delete', path: '/pulse/api/subscriptions/{token}', tags: [TAG], summary: 'Delete a subscription', request: { params: z.object({ token }) }, responses: { 200: jsonOf(z.object({ deleted: z.boolean() }), 'Deleted.'), ...errors(404) } });
  for (const action of ['pause', 'resume'] as const) {
    r.registerPath({ method: 'post', path: `/pulse/api/subscriptions/{token}/${action}`, tags: [TAG], summary: action === 'pause' ? 'Pause deliveries' : 'Resume deliveries (from now on)', request: { params: z.object({ token }) }, responses: { 200: jsonOf(Subscription, 'The subscription.'), ...errors(400, 404) } });
  }
  r.registerPath({
    method: 'get',
    path: '/pulse/api/subscriptions/{token}/deliveries',
    tags: [TAG],
    summary: 'The delivery ledger, newest first',
    request: { params: z.object({ token }), query: z.object({ limit: z.string().optional().openapi({ type: 'integer', minimum: 1, maximum: 200, default: 50, description: 'Deliveries to list, 1-200.' }) }) },
    responses: { 200: jsonOf(z.object({ deliveries: z.array(Delivery) }), 'Deliveries.'), ...errors(400, 404) },
  });
  r.registerPath({ method: 'post', path: '/pulse/api/confirm/{token}', tags: [TAG], summary: 'Confirm an e-mail subscription (the link of the confirmation e-mail)', request: { params: z.object({ token }) }, responses: { 200: jsonOf(z.object({ subscription: Subscription, manage_url: z.string() }), 'Confirmed; a manage link.'), ...errors(404) } });
  r.registerPath({
    method: 'post',
    path: '/pulse/api/preview',
    tags: [TAG],
    summary: 'What a filter matched over the last days of published changes',
    request: { body: { content: { 'application/json': { schema: z.strictObject({ filter: Filter.optional(), days: z.number().int().min(1).max(90).default(30) }) } }, required: true } },
    responses: { 200: jsonOf(z.object({ days: z.number().int(), total: z.number().int(), by_kind: z.record(z.string(), z.number().int()), changes: z.array(z.record(z.string(), z.unknown())) }), 'Matches, newest 50.'), ...errors(400) },
  });
}
