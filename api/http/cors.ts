/**
 * The headers of every answer, errors and refusals included: CORS (DESIGN §6: the API takes no
 * credentials, any origin may read it) and `X-Content-Type-Options: nosniff` (an error body
 * quotes what the caller sent, and a browser must never read a JSON answer as a page).
 */
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

export const ANSWER_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': EXPOSED_HEADERS.join(', '),
  'X-Content-Type-Options': 'nosniff',
};
