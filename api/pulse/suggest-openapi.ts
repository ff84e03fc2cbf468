/**
 * `GET /pulse/suggest` in the OpenAPI document: the JSON the subscribe form's filter builder
 * reads as one types (api/pulse/load/suggest.ts). Its handler reads the query itself (the
 * page's own rules), so it is described here rather than validated by zod-openapi; the
 * parameter schemas take exactly what readSuggestRequest takes.
 */
import { z } from '@hono/zod-openapi';
import type { ApiApp } from '../http/context.ts';
import { ErrorSchema } from '../routes/cves-schemas.ts';
import { SUGGEST_FIELDS, SUGGEST_MAX, SUGGEST_TEXT_MAX } from './load/suggest.ts';

/** Blank (any white space: no text yet), or text of at most SUGGEST_TEXT_MAX characters without a control character. */
const TEXT_PATTERN = `^(?:\\s*|[^\\u0000-\\u001f\\u007f]{0,${SUGGEST_TEXT_MAX}})$`;

const text = (description: string, example: string) => z.string().optional().openapi({ description, example, pattern: TEXT_PATTERN });

export function registerSuggestOpenApi(app: ApiApp): void {
  app.openAPIRegistry.registerPath({
    operationId: 'suggestFilterValues',
    method: 'get',
    path: '/pulse/suggest',
    tags: ['Pulse web area'],
    summary: 'Values for a subscription filter field, as one types (the subscribe form\'s suggestions)',
    description: `Vendors, products of a vendor, ecosystems, packages of an ecosystem or CWEs of the served snapshot, most common first, at most ${SUGGEST_MAX}.`,
    request: {
      query: z.object({
        field: z.enum(SUGGEST_FIELDS).openapi({ description: 'The filter field to suggest values for.', example: 'vendor' }),
        q: text('What was typed so far (a prefix; blank: the most common values).', 'micro'),
        scope: text('The vendor of a product, the ecosystem of a package.', 'linux'),
      }),
    },
    responses: {
      200: {
        description: 'The suggestions.',
        content: {
          'application/json': {
            schema: z
              .object({
                field: z.enum(SUGGEST_FIELDS),
                values: z.array(z.object({ value: z.string().openapi({ description: 'What the field takes.' }), label: z.string().openapi({ description: 'What the form shows.' }) })).max(SUGGEST_MAX),
              })
              .openapi('FilterSuggestions'),
          },
        },
      },
      503: { description: 'No snapshot is published yet (NO_SNAPSHOT).', content: { 'application/json': { schema: ErrorSchema } } },
    },
  });
}
