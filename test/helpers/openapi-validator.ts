/**
 * Checks an HTTP answer of the API against the OpenAPI document the server serves: the
 * operation (path template and method, HEAD by its GET), the status (declared for that
 * operation), the required headers and their values, and the body (its media type declared, the
 * JSON valid against the schema; none where none is declared, e.g. 304). Answers of /api/ and
 * /pulse/api/ the document does not describe must be the JSON error shape when they are errors,
 * and may not be successes under /api/v1/public (an endpoint missing from the document); the
 * HTML pages of /pulse are not the document's. checkRequest checks a JSON request body.
 *
 * JSON Schema validation is ajv's (draft 2020-12, the dialect of OpenAPI 3.1) with ajv-formats.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

type Json = Record<string, unknown>;

interface HeaderObject {
  required?: boolean;
  schema?: Json;
}

interface ResponseObject {
  headers?: Record<string, HeaderObject>;
  content?: Record<string, { schema?: Json }>;
}

interface Operation {
  operationId?: string;
  parameters?: { name: string; in: string }[];
  requestBody?: unknown;
  responses: Record<string, ResponseObject | { $ref: string }>;
}

/** The error codes that refuse one parameter's value, naming it in `parameter`. */
const PARAMETER_CODES = new Set(['INVALID_PARAMETER', 'REVERSE_NOT_ALLOWED', 'VENDOR_FILTER_NOT_ALLOWED']);

/** What was asked and answered; `body` is the text of the body, undefined when not read. */
export interface Exchange {
  method: string;
  url: string;
  status: number;
  headers: Headers;
  body: string | undefined;
}

/** Where the document describes every answer: the read API, the subscription API, the feed, the stream and the form's suggestions. */
const JSON_PREFIXES = ['/api/', '/pulse/api/', '/pulse/feeds/', '/pulse/stream', '/pulse/suggest'];
const DOC_ID = 'openapi.json';

interface Template {
  path: string;
  segments: string[];
  params: number;
}

export class OpenApiValidator {
  private readonly ajv: Ajv2020;
  private readonly templates: Template[];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(readonly document: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.ajv);
    // Schemas refer to `#/components/schemas/…` of the document: hold the components under an id
    // the compiled fragments can point to.
    this.ajv.addSchema({ $id: DOC_ID, components: document.components ?? {} });
    const broken = patternProblems(document);
    if (broken.length > 0) throw new Error(`The served OpenAPI document has patterns no validating client can use:\n  ${broken.join('\n  ')}`);
    const paths = Object.keys((document.paths ?? {}) as Json);
    this.templates = paths.map((path) => {
      const segments = path.split('/');
      return { path, segments, params: segments.filter((s) => s.startsWith('{')).length };
    });
    // A static segment wins over a parameter (`/cves/summary` before `/cves/{id}`).
    this.templates.sort((a, b) => a.params - b.params);
  }

  /** The path template an URL path matches, or undefined. */
  templateOf(pathname: string): string | undefined {
    const segments = pathname.split('/');
    return this.templates.find(
      (t) => t.segments.length === segments.length && t.segments.every((s, i) => (s.startsWith('{') ? segments[i] !== '' : s === segments[i])),
    )?.path;
  }

  operation(path: string, method: string): Operation | undefined {
    const item = (this.document.paths as Record<string, Record<string, Operation>>)[path];
    return item?.[method];
  }

  /** Every problem with the exchange, in words; empty when it matches the document. */
  check(ex: Exchange): string[] {
    const url = new URL(ex.url);
    const method = ex.method.toUpperCase();
    const where = `${method} ${url.pathname}${url.search} → ${ex.status}`;
    const problems: string[] = [];
    const template = this.templateOf(url.pathname);
    // HEAD is answered by the GET operation; every other method by its own.
    const operation = template ? this.operation(template, method === 'HEAD' ? 'get' : method.toLowerCase()) : undefined;

    if (!operation) {
      if (method === 'OPTIONS') return ex.status === 204 ? [] : [`${where}: a preflight answers 204`];
      // The web pages (/pulse/…, outside /pulse/api/) are HTML and not the document's to describe.
      if (!JSON_PREFIXES.some((prefix) => url.pathname.startsWith(prefix))) return [];
      if (ex.status >= 400) return this.checkJson(where, '#/components/schemas/Error', ex.body);
      // Every answer of the APIs is an operation of the document, the service's own paths
      // (health, the document itself) included: a client checking each answer looks it up.
      if (ex.status < 300) problems.push(`${where}: no operation of the document serves this`);
      return problems;
    }

    const declared = operation.responses[String(ex.status)] ?? operation.responses[`${String(ex.status)[0]}XX`] ?? operation.responses.default;
    if (!declared) return [`${where}: status ${ex.status} is not declared for ${operation.operationId ?? template}`];
    const response = this.resolve(declared);

    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const value = ex.headers.get(name);
      if (value === null) {
        if (header.required) problems.push(`${where}: required header ${name} is missing`);
        continue;
      }
      if (header.schema) problems.push(...this.checkValue(`${where}: header ${name}`, header.schema, headerValue(value, header.schema)));
    }

    if (ex.status === 400) problems.push(...this.checkNamedParameter(where, operation, url, ex.body));

    const content = response.content ?? {};
    const type = (ex.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (Object.keys(content).length === 0) {
      if (ex.body !== undefined && ex.body !== '') problems.push(`${where}: a body where the document declares none`);
      return problems;
    }
    if (method === 'HEAD' || ex.body === undefined) return problems;
    const media = content[type];
    if (!media) return [...problems, `${where}: Content-Type ${type || '(none)'} is not declared (${Object.keys(content).join(', ')})`];
    if (type === 'application/json' && media.schema) {
      problems.push(...this.checkJson(where, media.schema, ex.body));
    }
    return problems;
  }

  /**
   * Every problem with a request's JSON body against the operation's declared request body, in
   * words (what a client that validates before sending would refuse); empty when it matches.
   */
  checkRequest(method: string, url: string, body: unknown): string[] {
    const pathname = new URL(url).pathname;
    const where = `${method.toUpperCase()} ${pathname} request`;
    const template = this.templateOf(pathname);
    const operation = template ? (this.operation(template, method.toLowerCase()) as (Operation & { requestBody?: { content?: Record<string, { schema?: Json }> } }) | undefined) : undefined;
    if (!operation) return [`${where}: no operation of the document takes this`];
    const schema = operation.requestBody?.content?.['application/json']?.schema;
    if (!schema) return [`${where}: the operation declares no JSON body`];
    return this.checkValue(`${where}: body`, schema, body);
  }

  /**
   * A refusal of a parameter's value names that parameter (`parameter`), one the operation
   * declares or the request sent (an unknown parameter is refused only when its name cannot be
   * read): a client can point at what to fix. Operations with a request body name its members
   * instead (`filter.kinds`), not checked here.
   */
  private checkNamedParameter(where: string, operation: Operation, url: URL, body: string | undefined): string[] {
    if (body === undefined || operation.requestBody !== undefined) return [];
    let error: { code?: unknown; parameter?: unknown };
    try {
      error = JSON.parse(body) as typeof error;
    } catch {
      return [];
    }
    if (typeof error.code !== 'string' || !PARAMETER_CODES.has(error.code)) return [];
    if (typeof error.parameter !== 'string') return [`${where}: a ${error.code} names no parameter`];
    const declared = (operation.parameters ?? []).map((p) => p.name);
    const sent = [...url.searchParams.keys()];
    if (declared.includes(error.parameter) || sent.includes(error.parameter) || url.search.includes(`${error.parameter}=`)) return [];
    return [`${where}: ${error.code} names "${error.parameter}", neither a parameter of ${operation.operationId ?? 'the operation'} (${declared.join(', ')}) nor one sent`];
  }

  private resolve(response: ResponseObject | { $ref: string }): ResponseObject {
    if (!('$ref' in response)) return response;
    const name = response.$ref.replace('#/components/responses/', '');
    const found = ((this.document.components as Json | undefined)?.responses as Record<string, ResponseObject> | undefined)?.[name];
    if (!found) throw new Error(`the document's ${response.$ref} is not defined`);
    return found;
  }

  private checkJson(where: string, schema: Json | string, body: string | undefined): string[] {
    if (body === undefined) return [];
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return [`${where}: the body is not JSON: ${body.slice(0, 120)}`];
    }
    return this.checkValue(`${where}: body`, typeof schema === 'string' ? { $ref: schema } : schema, value);
  }

  private checkValue(where: string, schema: Json, value: unknown): string[] {
    const validate = this.validator(schema);
    if (validate(value)) return [];
    return (validate.errors ?? []).slice(0, 5).map((e) => `${where}${e.instancePath || ''} ${e.message ?? 'is invalid'} (${e.schemaPath})`);
  }

  private validator(schema: Json): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (!validate) {
      // Local refs of the document point into the components schema added above.
      const rebased = JSON.parse(key.replaceAll('"#/components/', `"${DOC_ID}#/components/`)) as Json;
      validate = this.ajv.compile(rebased);
      this.compiled.set(key, validate);
    }
    return validate;
  }
}

/** A header's text as the value its schema describes (integer headers are digits on the wire). */
function headerValue(text: string, schema: Json): unknown {
  if ((schema.type === 'integer' || schema.type === 'number') && /^-?\d+(\.\d+)?$/.test(text.trim())) return Number(text);
  return text;
}

/**
 * Every `pattern` of the document that a validating client cannot use, in words: one that does
 * not compile as ECMA-262 in Unicode mode (how ajv and most validators compile them), or that
 * carries a regex literal's flags into its text (`…$/i`: JSON Schema patterns have no flags, so
 * nothing matches it).
 */
export function patternProblems(document: unknown): string[] {
  const problems: string[] = [];
  const walk = (node: unknown, at: string): void => {
    if (Array.isArray(node)) node.forEach((item, i) => walk(item, `${at}/${i}`));
    else if (node !== null && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key !== 'pattern' || typeof value !== 'string') walk(value, `${at}/${key}`);
        else if (/\$\/[dgimsuvy]+$/.test(value)) problems.push(`${at}: ${value} ends in regex flags`);
        else {
          try {
            new RegExp(value, 'u');
          } catch (err) {
            problems.push(`${at}: ${(err as Error).message}`);
          }
        }
      }
    }
  };
  walk(document, '#');
  return problems;
}

/** Throws, listing the problems, when the exchange does not match the document. */
export function assertMatchesDocument(validator: OpenApiValidator, ex: Exchange): void {
  const problems = validator.check(ex);
  if (problems.length > 0) throw new Error(`The answer does not match the served OpenAPI document:\n  ${problems.join('\n  ')}`);
}
