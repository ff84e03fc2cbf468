/** The CORS headers of every answer (DESIGN §6): the API takes no credentials, any origin may read it. */
import { RATE_LIMIT_EXPOSED_HEADERS } from '../ratelimit/responses.ts';

/** Headers a browser script may read (CORS `Access-Control-Expose-Headers`). */
export const EXPOSED_HEADERS: readonly string[] = [
  'ETag',
  'X-Snapshot',
  'Content-Length',
  'X-Export-Total',
  'X-Export-Rows',
  'X-Export-Cap',
  'X-Export-Truncated',
  ...RATE_LIMIT_EXPOSED_HEADERS,
];

export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': EXPOSED_HEADERS.join(', '),
};
