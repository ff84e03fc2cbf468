/**
 * A request body read whole only up to a limit: the one way every route that takes a body
 * (the /pulse JSON API, the /pulse forms) reads it, so no caller can make a replica buffer more
 * than `maxBytes` (a 100 MB form field once ran the process out of heap).
 */
import type { Context } from 'hono';

/** The body was larger than the route takes; nothing past the limit was read. */
export class BodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`body: larger than ${maxBytes} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/**
 * The request body, refused past `maxBytes` (declared or as it streams) without reading it all.
 * A refused body is left unread on the connection, so the answer closes it (`Connection:
 * close`): a client that reused it would find it closed under its next request.
 */
export async function readBoundedBody(c: Context, maxBytes: number): Promise<Uint8Array> {
  const tooLarge = () => {
    c.header('Connection', 'close');
    return new BodyTooLargeError(maxBytes);
  };
  const declared = Number(c.req.header('content-length') ?? 'NaN');
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  const stream = c.req.raw.body;
  if (!stream) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
