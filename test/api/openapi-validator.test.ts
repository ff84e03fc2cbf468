/**
 * The checker every API test relies on (test/helpers/openapi-validator.ts) must itself catch
 * drift: an undeclared status, a missing required header, a body off its schema, a body where
 * none is declared, an endpoint missing from the document. A small document, no server.
 */
import { describe, expect, it } from 'vitest';
import { OpenApiValidator, type Exchange } from '../helpers/openapi-validator.ts';

const DOC = {
  openapi: '3.1.0',
  paths: {
    '/api/v1/public/things/{id}': {
      get: {
        operationId: 'getThing',
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'limit', in: 'query', schema: { type: 'integer' } },
        ],
        responses: {
          200: {
            description: 'ok',
            headers: { ETag: { required: true, schema: { type: 'string' } }, 'X-Count': { schema: { type: 'integer', minimum: 0 } } },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
          304: { $ref: '#/components/responses/NotModified' },
          400: { description: 'bad', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        },
      },
    },
    '/api/v1/public/things/summary': {
      get: { operationId: 'thingSummary', responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } } },
    },
  },
  components: {
    schemas: {
      Thing: { type: 'object', properties: { id: { type: 'string' }, at: { type: 'string', format: 'date-time' } }, required: ['id'] },
      Error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } }, required: ['code', 'message'] },
    },
    responses: { NotModified: { description: 'not modified', headers: { ETag: { required: true, schema: { type: 'string' } } } } },
  },
};

const validator = new OpenApiValidator(DOC);
const BASE = 'http://127.0.0.1:1';

function exchange(path: string, status: number, body: unknown, headers: Record<string, string> = { ETag: '"x"', 'Content-Type': 'application/json' }, method = 'GET'): Exchange {
  return { method, url: `${BASE}${path}`, status, headers: new Headers(headers), body: body === undefined ? '' : JSON.stringify(body) };
}

describe('OpenApiValidator', () => {
  it('accepts an answer that matches', () => {
    expect(validator.check(exchange('/api/v1/public/things/a1', 200, { id: 'a1', at: '2024-01-01T00:00:00Z' }))).toEqual([]);
    expect(validator.check(exchange('/api/v1/public/things/a1', 304, undefined, { ETag: '"x"' }))).toEqual([]);
  });

  it('prefers a static path over a template', () => {
    expect(validator.templateOf('/api/v1/public/things/summary')).toBe('/api/v1/public/things/summary');
    expect(validator.templateOf('/api/v1/public/things/other')).toBe('/api/v1/public/things/{id}');
  });

  it('flags an undeclared status', () => {
    expect(validator.check(exchange('/api/v1/public/things/a1', 429, { code: 'RATE_LIMIT_EXCEEDED', message: 'm' })).join()).toMatch(/status 429 is not declared for getThing/);
  });

  it('flags a missing required header and a malformed one', () => {
    expect(validator.check(exchange('/api/v1/public/things/a1', 200, { id: 'a' }, { 'Content-Type': 'application/json' })).join()).toMatch(/required header ETag is missing/);
    expect(validator.check(exchange('/api/v1/public/things/a1', 200, { id: 'a' }, { ETag: '"x"', 'X-Count': 'many', 'Content-Type': 'application/json' })).join()).toMatch(/header X-Count/);
  });

  it('flags a body off its schema, formats included', () => {
    expect(validator.check(exchange('/api/v1/public/things/a1', 200, { at: 'yesterday' })).join()).toMatch(/must have required property 'id'/);
    expect(validator.check(exchange('/api/v1/public/things/a1', 200, { id: 'a', at: 'yesterday' })).join()).toMatch(/must match format "date-time"/);
  });

  it('flags a body where none is declared, and an undeclared media type', () => {
    expect(validator.check(exchange('/api/v1/public/things/a1', 304, { id: 'a' })).join()).toMatch(/a body where the document declares none/);
    expect(validator.check(exchange('/api/v1/public/things/a1', 200, { id: 'a' }, { ETag: '"x"', 'Content-Type': 'text/plain' })).join()).toMatch(/Content-Type text\/plain is not declared/);
  });

  it('outside the document: errors must be the Error shape, successes under /api/v1/public are flagged', () => {
    expect(validator.check(exchange('/api/v1/public/nothing', 404, { code: 'NOT_FOUND', message: 'no' }))).toEqual([]);
    expect(validator.check(exchange('/api/v1/public/nothing', 404, { error: 'no' })).join()).toMatch(/required property 'code'/);
    expect(validator.check(exchange('/api/v1/public/nothing', 200, {})).join()).toMatch(/no operation of the document serves this/);
    // Outside /api/v1/public too: an answer no operation serves (health was one) is flagged.
    expect(validator.check(exchange('/api/v1/elsewhere', 200, {})).join()).toMatch(/no operation of the document serves this/);
  });

  it('flags a refusal of a parameter that names none, or one neither declared nor sent', () => {
    const refusal = (search: string, body: object) => validator.check(exchange(`/api/v1/public/things/a1${search}`, 400, body, { 'Content-Type': 'application/json' }));
    expect(refusal('?limit=x', { code: 'INVALID_PARAMETER', message: 'm', parameter: 'limit' })).toEqual([]);
    expect(refusal('', { code: 'INVALID_PARAMETER', message: 'm', parameter: 'id' })).toEqual([]);
    // An unknown parameter whose name cannot be read is named as it was sent.
    expect(refusal('?%E0%A4%A=1', { code: 'INVALID_PARAMETER', message: 'm', parameter: '%E0%A4%A' })).toEqual([]);
    expect(refusal('?limit=x', { code: 'INVALID_PARAMETER', message: 'm' }).join()).toMatch(/INVALID_PARAMETER names no parameter/);
    expect(refusal('?limit=x', { code: 'INVALID_PARAMETER', message: 'm', parameter: 'offset' }).join()).toMatch(/names "offset", neither a parameter of getThing \(id, limit\) nor one sent/);
    // Other 400s (a request the parser refused) name nothing.
    expect(refusal('', { code: 'MALFORMED_REQUEST', message: 'm' })).toEqual([]);
  });
});
