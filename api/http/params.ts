/**
 * Query and path parameters as zod schemas for `createRoute` (@hono/zod-openapi): the same
 * schema validates the request and describes the parameter in /api/v1/openapi.json. Each
 * parameter arrives as a string; each parser turns it into its value or fails with a message
 * the app's validation hook returns as 400 INVALID_PARAMETER naming the parameter. A
 * parameter sent twice is malformed too (the hook says so), never silently one of the two.
 *
 * Routes of every module use these, so the same parameter reads the same everywhere.
 */
import { z } from '@hono/zod-openapi';
import { parseTimestampMicros } from './timestamps.ts';
import { codePointsExceed } from '../../lib/code-points.ts';

/** What `.openapi()` takes for a parameter; only the members used here. */
interface ParamDoc {
  description: string;
  type?: 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  minimum?: number;
  maximum?: number;
  default?: unknown;
  example?: unknown;
  enum?: (string | boolean)[];
  pattern?: string;
  maxLength?: number;
}

/**
 * An optional string parameter parsed by `parse` (which throws an Error whose message is the
 * client's explanation), documented by `doc`.
 */
export function queryParam<T>(parse: (raw: string) => T, doc: ParamDoc) {
  return z
    .string()
    .transform((raw, ctx) => {
      try {
        return parse(raw);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    })
    .optional()
    .openapi({ type: 'string', ...doc });
}

export function parseInteger(raw: string, min: number, max: number): number {
  if (!/^\d{1,16}$/.test(raw)) throw new Error(`expected a whole number from ${min} to ${max}`);
  const value = Number(raw);
  if (value < min || value > max) throw new Error(`expected a whole number from ${min} to ${max}, got ${value}`);
  return value;
}

export function integerParam(opts: { min: number; max: number; description: string; default?: number; example?: number }) {
  return queryParam((raw) => parseInteger(raw, opts.min, opts.max), {
    type: 'integer',
    minimum: opts.min,
    maximum: opts.max,
    description: opts.description,
    ...(opts.default !== undefined ? { default: opts.default } : {}),
    ...(opts.example !== undefined ? { example: opts.example } : {}),
  });
}

/**
 * A decimal as any client may write a JSON Schema `number`: optional sign, digits, fraction,
 * exponent (`9`, `9.5`, `.5`, `7.0000001`, `1e-7`, `1E1`). No precision limit: the value is a
 * double, compared as one.
 */
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

export function parseNumber(raw: string, min: number, max: number): number {
  const value = DECIMAL.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isFinite(value)) throw new Error(`expected a number from ${min} to ${max}`);
  if (value < min || value > max) throw new Error(`expected a number from ${min} to ${max}, got ${raw}`);
  // -0 and 0 are the same bound; the SQL filter should not read "-0".
  return value === 0 ? 0 : value;
}

export function numberParam(opts: { min: number; max: number; description: string; example?: number }) {
  return queryParam((raw) => parseNumber(raw, opts.min, opts.max), {
    type: 'number',
    minimum: opts.min,
    maximum: opts.max,
    description: opts.description,
    ...(opts.example !== undefined ? { example: opts.example } : {}),
  });
}

const TRUE = new Set(['true', '1', 'yes']);
const FALSE = new Set(['false', '0', 'no']);

export function parseBoolean(raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  throw new Error('expected true or false (1 or 0)');
}

/** Whether `raw` is true as parseBoolean reads it: false when absent or not a boolean at all. */
export function isTrue(raw: string | undefined): boolean {
  try {
    return raw !== undefined && parseBoolean(raw);
  } catch {
    return false;
  }
}

/** `true`/`false`, `1`/`0`, `yes`/`no`, any case. */
export function booleanParam(description: string) {
  return queryParam(parseBoolean, { type: 'boolean', description });
}

/**
 * A boolean parameter an endpoint serves only as false (shared with one that serves both): the
 * document says so with `enum: [false]`, so a client that generates requests from it never
 * sends the true that is always refused.
 */
export function falseOnlyParam(description: string) {
  return queryParam(parseBoolean, { type: 'boolean', enum: [false], description });
}

/** The member of `values` that `raw` names, any case (as enumParam reads it), else undefined. */
export function enumValueOf<const V extends string>(values: readonly V[], raw: string | undefined): V | undefined {
  return raw === undefined ? undefined : values.find((v) => v.toLowerCase() === raw.trim().toLowerCase());
}

/** One of `values`, any case; the value comes back as spelled in `values`. */
export function enumParam<const V extends string>(values: readonly V[], opts: { description: string; default?: V }) {
  return queryParam(
    (raw): V => {
      const found = enumValueOf(values, raw);
      if (found === undefined) throw new Error(`expected one of ${values.join(', ')}`);
      return found;
    },
    { enum: [...values], description: opts.description, ...(opts.default !== undefined ? { default: opts.default } : {}) },
  );
}

/**
 * A regex source matching `text` in any case (`high` → `[Hh][Ii][Gg][Hh]`), syntax characters
 * escaped. Only those: validators compile JSON Schema patterns in Unicode mode (ajv's default),
 * where an escape of anything else (`\-`) is a syntax error.
 */
export function anyCase(text: string): string {
  return [...text]
    .map((ch) => {
      const lower = ch.toLowerCase();
      const upper = ch.toUpperCase();
      if (lower !== upper) return `[${upper}${lower}]`;
      return ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    })
    .join('');
}

/**
 * The JSON Schema pattern of a comma-separated list of `values` exactly as enumListParam reads
 * it: any case, white space around each item ignored, at least one item.
 */
export function enumListPattern(values: readonly string[]): string {
  const item = `\\s*(?:${values.map(anyCase).join('|')})\\s*`;
  return `^${item}(?:,${item})*$`;
}

/** A comma-separated list of `values`, any case, at least one; duplicates dropped. */
export function enumListParam<const V extends string>(values: readonly V[], opts: { description: string; example?: string }) {
  return queryParam(
    (raw): V[] => {
      const items = raw.split(',').map((s) => s.trim());
      const out: V[] = [];
      for (const item of items) {
        const found = values.find((v) => v.toLowerCase() === item.toLowerCase());
        if (found === undefined) throw new Error(`expected a comma-separated list of ${values.join(', ')}; "${item}" is not one`);
        if (!out.includes(found)) out.push(found);
      }
      return out;
    },
    { description: opts.description, pattern: enumListPattern(values), ...(opts.example ? { example: opts.example } : {}) },
  );
}

/** `YYYY-MM-DD` or RFC 3339, as microseconds since the epoch (UTC). */
export function timestampParam(description: string, example = '2024-01-31T00:00:00Z') {
  return queryParam(parseTimestampMicros, { format: 'date-time', description, example });
}

/**
 * Not blank: some character other than white space (unanchored, as JSON Schema patterns are; `\s`
 * is what trim() removes). As a JSON Schema pattern and as the RegExp testing it.
 */
export const NOT_BLANK_PATTERN = '\\S';
export const NOT_BLANK = new RegExp(NOT_BLANK_PATTERN);

/** A CVE id in any case, as a JSON Schema pattern (no flags there) and as the RegExp testing it. */
export const CVE_ID_PATTERN = '^[Cc][Vv][Ee]-\\d{4}-\\d{4,19}$';
export const CVE_ID = new RegExp(CVE_ID_PATTERN);

/** `CVE-YYYY-NNNN…`, any case; returned upper-cased. */
export function parseCveId(raw: string): string {
  if (!CVE_ID.test(raw)) throw new Error('expected a CVE identifier such as CVE-2024-3400');
  return raw.toUpperCase();
}

/**
 * Free text of at most `max` characters; `pattern`, when given, is a rule the route's reader of
 * the text enforces later (and the document must state, so that a client does not send what
 * is refused).
 */
export function textParam(opts: { description: string; max: number; example?: string; pattern?: string }) {
  return queryParam(
    (raw) => {
      // Counted in code points, as JSON Schema's maxLength counts.
      if (codePointsExceed(raw, opts.max)) throw new Error(`at most ${opts.max} characters`);
      return raw;
    },
    {
      description: opts.description,
      maxLength: opts.max,
      ...(opts.pattern !== undefined ? { pattern: opts.pattern } : {}),
      ...(opts.example !== undefined ? { example: opts.example } : {}),
    },
  );
}

/** A path parameter holding a CVE id (`/cves/{id}`). */
export function cveIdPathParam(name = 'id') {
  return z
    .string()
    .transform((raw, ctx) => {
      try {
        return parseCveId(raw);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    })
    .openapi({
      param: { name, in: 'path' },
      type: 'string',
      pattern: CVE_ID_PATTERN,
      description: 'CVE identifier, any case (answered upper-cased).',
      example: 'CVE-2024-3400',
    });
}
