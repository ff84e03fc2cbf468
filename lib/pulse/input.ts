/**
 * What the subscription service accepts (PULSE §4), validated before anything is stored or
 * sent: strict objects (an unknown member is refused by name), bounded strings and lists.
 * A failure is a PulseInputError naming the field by its dotted path (`filter.min_risk`).
 */
// zod as extended by @hono/zod-openapi: the same schemas also describe the endpoints (api/pulse/openapi.ts).
import { domainToASCII } from 'node:url';
import { z } from '@hono/zod-openapi';
import {
  CHANGE_KINDS,
  FILTER_CWE_PATTERN,
  canonicalCwe,
  FILTER_TEXT_MAX,
  FILTER_TEXT_PATTERN,
  filterTextProblem,
  PRODUCT_NEEDS_VENDOR,
  SEARCH_TEXT_PATTERN,
  searchTextProblem,
  type ChangeFilter,
} from '../changes/model.ts';
import { PulseInputError } from './errors.ts';
import { MAX_WEBHOOK_URL_LENGTH } from './ssrf.ts';
import { CADENCES, CHANNELS, type Cadence, type Channel } from './types.ts';

/** Bodies above this are refused before parsing (413-free: a 400 naming `body`). */
export const MAX_BODY_BYTES = 16 * 1024;

/** A filter text member (lib/changes/model.ts: filterTextProblem, searchTextProblem for search), stored trimmed. */
const keyText = (problemOf = filterTextProblem, pattern = FILTER_TEXT_PATTERN) =>
  z
    .string()
    .superRefine((s, ctx) => {
      const problem = problemOf(s);
      if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
    })
    .trim()
    .openapi({ minLength: 1, maxLength: FILTER_TEXT_MAX, pattern });

export const FilterSchema = z.strictObject({
  kinds: z
    .array(z.enum(CHANGE_KINDS))
    .max(CHANGE_KINDS.length)
    .refine((kinds) => new Set(kinds).size === kinds.length, 'kinds must not repeat a kind')
    .openapi({ uniqueItems: true })
    .optional(),
  vendor: keyText().optional(),
  product: keyText().optional(),
  ecosystem: keyText().optional(),
  package: keyText().optional(),
  cwe: z
    .string()
    .trim()
    // Case by character classes, not the `i` flag: the OpenAPI document carries the pattern,
    // and a JSON Schema pattern has no flags (the generator wrote `…$/i`, which nothing matches).
    // (white space around it allowed too: the document describes the value as sent, before the trim above.)
    .regex(new RegExp(FILTER_CWE_PATTERN), 'cwe must look like CWE-79')
    .transform(canonicalCwe)
    .optional(),
  search: keyText(searchTextProblem, SEARCH_TEXT_PATTERN).optional(),
  min_severity: z.enum(['LOW', 'MEDIUM', 'HIGH', 'CRITICAL']).optional(),
  min_risk: z.number().min(0).max(100).optional(),
  kev_only: z.boolean().optional(),
})
  .superRefine((filter, ctx) => {
    if (filter.product !== undefined && filter.vendor === undefined) ctx.addIssue({ code: 'custom', path: ['product'], message: PRODUCT_NEEDS_VENDOR });
  })
  // The document says it too: never a product without a vendor.
  .openapi({ not: { required: ['product'], not: { required: ['vendor'] } } });

/*
 * An e-mail address: the WHATWG HTML standard's "valid e-mail address" (what every browser's
 * <input type=email> checks, the subscribe form's field among them; a definition kept by the
 * standard, and by zod as z.regexes.html5Email), narrowed where it is looser than delivery:
 *   - the local part is a dot-atom (RFC 5322 §3.2.3) of at most 64 characters (RFC 5321
 *     §4.5.3.1.1): no dot first or last, no "..";
 *   - the domain has two labels or more, and the last is not all digits (RFC 3696 §2): the
 *     WHATWG host parser nodemailer applies to the domain reads `10.1` as the IPv4 address
 *     10.0.0.1 and `123.456` as 123.0.1.200, so "bob@10.1" was stored while the mail went to
 *     bob@10.0.0.1; IP literals (`[127.0.0.1]`) are refused with them.
 * ASCII only, as the HTML definition is: no control character (C0, C1), bidirectional override
 * or lone surrogate passes, nor a non-ASCII local part (nodemailer sends one as SMTPUTF8 with
 * the domain rewritten to Unicode). emailDomainProblem then checks that the domain is the one
 * the mailer writes, and parseCreate stores it so: the address stored is the address mailed.
 */
const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]";
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const EMAIL = new RegExp(`^(?=[^@]{1,64}@)${ATEXT}+(?:\\.${ATEXT}+)*@(?:${LABEL}\\.)+(?![0-9]+$)${LABEL}$`);
const EMAIL_SHAPE = 'email is not an address mail can go to (name@example.org: ASCII only, no IP address or numeric domain, no dot at either end of the name or two in a row)';

/**
 * A domain as the mailer writes it in the envelope: nodemailer passes it through the WHATWG
 * host parser (node:url domainToASCII), which lower-cases it and maps or refuses what is not a
 * plain DNS name (a last label such as `0x1f` is read as a number, an `xn--` label that is not
 * Punycode is refused). Empty when that parser refuses it.
 */
function mailedDomain(domain: string): string {
  return domainToASCII(domain);
}

/** What is wrong with the domain of an address of EMAIL's shape (in words), or null. */
function emailDomainProblem(address: string): string | null {
  const domain = address.slice(address.lastIndexOf('@') + 1);
  return mailedDomain(domain) === domain.toLowerCase() ? null : 'email has a domain that is not a DNS name mail can be sent to as written';
}

/** The address as stored and mailed: the local part as given, the domain as the mailer writes it (lower case). */
function mailedAddress(address: string): string {
  const at = address.lastIndexOf('@');
  return `${address.slice(0, at)}@${mailedDomain(address.slice(at + 1))}`;
}

/** The members of a creation (CreateSchema), also the pieces of its OpenAPI description (api/pulse/openapi.ts). */
export const EmailField = z
  .string()
  .max(254, 'email is limited to 254 characters')
  .regex(EMAIL, EMAIL_SHAPE)
  .superRefine((address, ctx) => {
    // Only once the shape is right (zod runs every check; the first issue is the one named).
    if (!EMAIL.test(address)) return;
    const problem = emailDomainProblem(address);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  });
// The scheme checked here too (as the URL parser reads it: any case, after leading controls and
// spaces) so that the document's pattern says it; the rest is lib/pulse/ssrf.ts's.
export const UrlField = z
  .string()
  .max(MAX_WEBHOOK_URL_LENGTH, `url is limited to ${MAX_WEBHOOK_URL_LENGTH} characters`)
  .regex(/^[\u0000-\u0020]*[Hh][Tt][Tt][Pp][Ss]?:/, 'url must be an http:// or https:// URL');
export const CadenceField = z.enum(CADENCES).default('realtime');

const CreateSchema = z.strictObject({
  channel: z.enum(CHANNELS),
  email: EmailField.optional(),
  url: UrlField.optional(),
  cadence: CadenceField,
  filter: FilterSchema.default({}),
});

const UpdateSchema = z
  .strictObject({
    cadence: z.enum(CADENCES).optional(),
    filter: FilterSchema.optional(),
  })
  .refine((body) => body.cadence !== undefined || body.filter !== undefined, { message: 'give cadence or filter (or both) to change', path: ['body'] });

export interface CreateInput {
  channel: Channel;
  /** The e-mail address or the webhook URL. */
  address: string;
  cadence: Cadence;
  filter: ChangeFilter;
}

export interface UpdateInput {
  cadence?: Cadence;
  filter?: ChangeFilter;
}

function fail(error: z.ZodError): never {
  const issue = error.issues[0]!;
  let path = issue.path.map(String);
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    path = [...path, issue.keys[0]!];
    message = `unknown member "${issue.keys[0]}"`;
  } else if (issue.code === 'invalid_type' && /received undefined/.test(issue.message)) {
    message = 'required';
  }
  const field = path.length > 0 ? path.join('.') : 'body';
  throw new PulseInputError(field, `${field}: ${message}`);
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

export function parseFilter(value: unknown): ChangeFilter {
  const parsed = FilterSchema.safeParse(value);
  if (!parsed.success) {
    try {
      fail(parsed.error);
    } catch (err) {
      if (err instanceof PulseInputError) {
        // The filter itself is wrong (an array, a string): named `filter`, not `filter.body`.
        if (err.field === 'body') throw new PulseInputError('filter', `filter: ${err.message.slice('body: '.length)}`);
        throw new PulseInputError(`filter.${err.field}`, `filter.${err.message}`);
      }
      throw err;
    }
  }
  return dropUndefined(parsed.data) as ChangeFilter;
}

export function parseCreate(value: unknown): CreateInput {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new PulseInputError('body', 'body: must be a JSON object');
  const parsed = CreateSchema.safeParse(value);
  if (!parsed.success) fail(parsed.error);
  const body = parsed.data;
  if (body.channel === 'email') {
    if (body.url !== undefined) throw new PulseInputError('url', 'url: only for channel "webhook"');
    if (body.email === undefined) throw new PulseInputError('email', 'email: required for channel "email"');
  } else {
    if (body.email !== undefined) throw new PulseInputError('email', 'email: only for channel "email"');
    if (body.url === undefined) throw new PulseInputError('url', 'url: required for channel "webhook"');
  }
  const address = body.email !== undefined ? mailedAddress(body.email) : body.url!;
  return { channel: body.channel, address, cadence: body.cadence, filter: dropUndefined(body.filter) as ChangeFilter };
}

export function parseUpdate(value: unknown): UpdateInput {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new PulseInputError('body', 'body: must be a JSON object');
  const parsed = UpdateSchema.safeParse(value);
  if (!parsed.success) fail(parsed.error);
  const out: UpdateInput = {};
  if (parsed.data.cadence !== undefined) out.cadence = parsed.data.cadence;
  if (parsed.data.filter !== undefined) out.filter = dropUndefined(parsed.data.filter) as ChangeFilter;
  return out;
}

/** Raw request bytes to a JSON value: bounded, and a parse error names `body`. */
export function parseJsonBody(bytes: Uint8Array): unknown {
  if (bytes.byteLength > MAX_BODY_BYTES) throw new PulseInputError('body', `body: larger than ${MAX_BODY_BYTES} bytes`);
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  if (text.trim() === '') throw new PulseInputError('body', 'body: empty; send a JSON object');
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new PulseInputError('body', `body: not JSON (${(err as Error).message})`);
  }
}
