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

/** What `.openapi()` takes for a parameter; only the members used here. */
interface ParamDoc {
  description: string;
  type?: 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  minimum?: number;
  maximum?: number;
  default?: unknown;
  example?: unknown;
  enum?: string[];
  pattern?: string;
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

export function numberParam(opts: { min: number; max: number; description: string; example?: number }) {
  return queryParam(
    (raw) => {
      if (!/^\d{1,3}(\.\d{1,6})?$/.test(raw)) throw new Error(`expected a number from ${opts.min} to ${opts.max}`);
      const value = Number(raw);
      if (value < opts.min || value > opts.max) throw new Error(`expected a number from ${opts.min} to ${opts.max}, got ${value}`);
      return value;
    },
    { type: 'number', minimum: opts.min, maximum: opts.max, description: opts.description, ...(opts.example !== undefined ? { example: opts.example } : {}) },
  );
}

const TRUE = new Set(['true', '1', 'yes']);
const FALSE = new Set(['false', '0', 'no']);

export function parseBoolean(raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  throw new Error('expected true or false (1 or 0)');
}

/** `true`/`false`, `1`/`0`, `yes`/`no`, any case. */
export function booleanParam(description: string) {
  return queryParam(parseBoolean, { type: 'boolean', description });
}

/** One of `values`, any case; the value comes back as spelled in `values`. */
export function enumParam<const V extends string>(values: readonly V[], opts: { description: string; default?: V }) {
  return queryParam(
    (raw): V => {
      const found = values.find((v) => v.toLowerCase() === raw.trim().toLowerCase());
      if (found === undefined) throw new Error(`expected one of ${values.join(', ')}`);
      return found;
    },
    { enum: [...values], description: opts.description, ...(opts.default !== undefined ? { default: opts.default } : {}) },
  );
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
    { description: opts.description, pattern: `^(${values.join('|')})(,(${values.join('|')}))*$`, ...(opts.example ? { example: opts.example } : {}) },
  );
}

/** `YYYY-MM-DD` or RFC 3339, as microseconds since the epoch (UTC). */
export function timestampParam(description: string, example = '2024-01-31T00:00:00Z') {
  return queryParam(parseTimestampMicros, { format: 'date-time', description, example });
}

export const CVE_ID = /^CVE-\d{4}-\d{4,19}$/i;

/** `CVE-YYYY-NNNN…`, any case; returned upper-cased. */
export function parseCveId(raw: string): string {
  if (!CVE_ID.test(raw)) throw new Error('expected a CVE identifier such as CVE-2024-3400');
  return raw.toUpperCase();
}

/** Free text of at most `max` characters. */
export function textParam(opts: { description: string; max: number; example?: string }) {
  return queryParam(
    (raw) => {
      if (raw.length > opts.max) throw new Error(`at most ${opts.max} characters`);
      return raw;
    },
    { description: opts.description, ...(opts.example !== undefined ? { example: opts.example } : {}) },
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
      pattern: '^[Cc][Vv][Ee]-\\d{4}-\\d{4,}$',
      description: 'CVE identifier, any case (answered upper-cased).',
      example: 'CVE-2024-3400',
    });
}
