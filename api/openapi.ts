/**
 * `/api/v1/openapi.json`: the OpenAPI 3.1 document, generated from the routes' own zod
 * schemas (every module registers with `createRoute`, so what validates a request is what is
 * documented), and `/api/v1/docs`: one self-contained HTML page rendering it. The machine may
 * be offline: the page loads nothing from elsewhere (the document is embedded in it).
 */
import { readFileSync } from 'node:fs';
import { createRoute, z } from '@hono/zod-openapi';
import { join } from 'node:path';
import type { ApiApp } from './http/context.ts';
import { asRouteResponse, CACHE_CONTROL, sendBody } from './http/respond.ts';
import { DOCS_PAGE_CSP, renderDocsPage } from './openapi-docs-page.ts';
import { registerSharedSchemas, withSharedDeclarations } from './openapi-shared.ts';

export const OPENAPI_PATH = '/api/v1/openapi.json';
export const DOCS_PATH = '/api/v1/docs';

function packageInfo(): { version: string; license: string } {
  try {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { version?: string; license?: string };
    return { version: pkg.version ?? '0.0.0', license: pkg.license ?? 'Apache-2.0' };
  } catch {
    return { version: '0.0.0', license: 'Apache-2.0' };
  }
}

const DESCRIPTION = [
  'Read-only vulnerability intelligence: every public CVE source merged and scored into immutable snapshots.',
  'All `/api/v1` endpoints are GET (HEAD too), CORS-enabled, without authentication; the `/pulse/api` subscription endpoints',
  '(POST/PATCH/DELETE, capability tokens instead of accounts) are the only writes. Every response carries `X-Snapshot` (the build id),',
  '`ETag` and `Cache-Control`; a request with a matching `If-None-Match` gets 304.',
  'Errors are JSON `{"code", "message", …}` (see the Error schema). Rate limits: contract section 8 (429 RATE_LIMIT_EXCEEDED).',
  'Enumerated values and booleans are read in any case (booleans also as 1/0, yes/no); the document gives their canonical spelling.',
].join(' ');

/**
 * Generates the document from every route registered so far on `app`, with what every
 * operation shares (api/openapi-shared.ts). The API takes no credentials (contract §5):
 * `security: []`. The server is the one the document was fetched from (a relative URL).
 */
export function openApiDocument(app: ApiApp): Record<string, unknown> {
  const { version, license } = packageInfo();
  registerSharedSchemas(app);
  const generated = app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: { title: 'vulnintel public API', version, description: DESCRIPTION, license: { name: license, identifier: license } as { name: string } },
    servers: [{ url: '/', description: 'The server this document was fetched from.' }],
    security: [],
  }) as unknown as Record<string, unknown>;
  return withSharedDeclarations(generated);
}

const documentRoute = createRoute({
  operationId: 'getOpenApiDocument',
  method: 'get',
  path: OPENAPI_PATH,
  tags: ['Service'],
  summary: 'This OpenAPI 3.1 document',
  responses: {
    200: {
      description: 'The OpenAPI 3.1 document of every operation (generated from the schemas that validate the requests).',
      content: { 'application/json': { schema: z.object({}).passthrough().openapi({ description: 'An OpenAPI 3.1 document.' }) } },
    },
  },
});

const docsRoute = createRoute({
  operationId: 'getApiDocsPage',
  method: 'get',
  path: DOCS_PATH,
  tags: ['Service'],
  summary: 'This document as one self-contained HTML page',
  responses: {
    200: { description: 'An HTML page rendering the document (it loads nothing from elsewhere).', content: { 'text/html': { schema: z.string() } } },
  },
});

/**
 * Adds the document's own two paths, themselves described in it (a client checking every
 * answer against the document finds them there); call after every route module registered
 * (the document is made once, on its first request).
 */
export function registerOpenApi(app: ApiApp): void {
  let json: Buffer | undefined;
  let html: Buffer | undefined;
  const document = () => {
    if (!json) {
      const doc = openApiDocument(app);
      json = Buffer.from(JSON.stringify(doc));
      html = Buffer.from(renderDocsPage(doc));
    }
    return { json, html: html! };
  };
  app.openapi(documentRoute, (c) => asRouteResponse(sendBody(c, document().json, { cacheControl: CACHE_CONTROL.static })));
  app.openapi(docsRoute, (c) =>
    asRouteResponse(sendBody(c, document().html, { cacheControl: CACHE_CONTROL.static, contentType: 'text/html; charset=utf-8', headers: { 'Content-Security-Policy': DOCS_PAGE_CSP } })),
  );
}
