/**
 * Requests Node's HTTP parser refuses before any app code runs (a request head over
 * `http.maxHeaderSize` → 431, raw non-ASCII bytes or other characters HTTP forbids in the URL,
 * a malformed request line → 400, a request that never finished arriving → 408). Node's own
 * answer has no body and no CORS headers; this one is the API's JSON error
 * (`{"code", "message"}`, api/http/errors.ts) with the CORS headers and `X-Snapshot` every
 * answer carries, written straight to the socket, which is then closed (the parser cannot go
 * on after such an error).
 */
import { maxHeaderSize, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { RequestError } from '@hono/node-server';
import type { Duplex } from 'node:stream';
import { ApiError, internalError } from './errors.ts';
import { ANSWER_HEADERS } from './cors.ts';
import { CACHE_CONTROL, JSON_TYPE, etagOf } from './respond.ts';

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/** The API error for a parser error, or null when there is nobody to answer (a reset). */
export function parserRefusal(err: NodeJS.ErrnoException & { reason?: string }): ApiError | null {
  switch (err.code) {
    case 'ECONNRESET':
    case 'EPIPE':
      return null;
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(
        'REQUEST_HEADERS_TOO_LARGE',
        `The request line and headers together exceed the server's limit of ${maxHeaderSize} bytes; shorten the URL (long filters belong in several requests) or the headers.`,
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('REQUEST_TIMEOUT', 'The request did not arrive in full in time.');
    default: {
      const why = err.reason ?? err.message.replace(/^Parse Error: /, '');
      return new ApiError('MALFORMED_REQUEST', `The request is not valid HTTP/1.1 (${why}). ${parserHint(why)}`, { reason: why });
    }
  }
}

/**
 * What to fix, by the parser's reason (llhttp's words: "Invalid char in url query", "Invalid
 * method encountered", "Invalid header value char", "Missing expected CR after header value",
 * …): the URL's characters only when the URL is what it refused.
 */
function parserHint(reason: string): string {
  if (/\burl\b/i.test(reason)) return 'Characters outside printable ASCII in the URL must be percent-encoded (UTF-8).';
  if (/\bmethod\b/i.test(reason)) return 'The request line must start with an HTTP method such as GET.';
  if (/header|content-length|transfer-encoding/i.test(reason)) {
    return 'A header is malformed: each header line is a name, a colon and a value of printable text, and ends in CR LF.';
  }
  return 'The request line must be METHOD TARGET HTTP/1.1, and each header line a name, a colon and a value, ending in CR LF.';
}

/** What to fix, by the reason @hono/node-server's RequestError gives: the Host only when it is the Host. */
function unreadableHint(reason: string): string {
  if (/\bhost\b/i.test(reason)) return 'HTTP/1.1 requires a Host header naming the server.';
  if (/backslash/i.test(reason)) return 'A backslash is not allowed in the path: use "/", or send it percent-encoded as %5C.';
  return 'The request target must be a path starting with "/" (or an absolute http(s) URL), and the Host header a host name with an optional port.';
}

/** The headers of an answer made before the app ran: those of every answer, and the body's ETag. */
function refusalHeaders(body: string, snapshot: string): Record<string, string> {
  return { 'Content-Type': JSON_TYPE, 'Cache-Control': CACHE_CONTROL.noStore, ETag: etagOf(body), ...ANSWER_HEADERS, 'X-Snapshot': snapshot };
}

/** The raw HTTP/1.1 answer: status line, headers, JSON body; the connection closes after it. */
export function rawErrorResponse(error: ApiError, snapshot: string): string {
  const body = JSON.stringify(error.body());
  const headers: Record<string, string> = {
    ...refusalHeaders(body, snapshot),
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  return `HTTP/1.1 ${error.status} ${REASONS[error.status] ?? 'Error'}\r\n${head}\r\n${body}`;
}

/**
 * Answers parser errors on `server` with the JSON error where the socket still allows it: as
 * Node itself does, unless an answer is under way on the connection (its head already sent:
 * another cannot follow it). A kept-alive connection whose earlier answers are complete is
 * answered like a new one; every client library reuses connections.
 */
export function answerClientErrors(server: Server, snapshot: () => string): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex & { _httpMessage?: { headersSent?: boolean } | null }) => {
    const refusal = parserRefusal(err);
    // Node's own test (socketOnError in lib/_http_server.js): the response in flight, if any.
    const answering = socket._httpMessage?.headersSent === true;
    if (refusal === null || !socket.writable || answering) {
      socket.destroy();
      return;
    }
    socket.end(rawErrorResponse(refusal, snapshot()), () => socket.destroy());
  });
}

/**
 * A request Node's parser took but no `Request` can be made of (@hono/node-server's
 * RequestError: no `Host`, a `Host` that is no host name, a backslash in the path): the API's
 * JSON 400, as for the parser's own refusals, instead of the adapter's empty 400. Anything else
 * thrown before the app ran is a 500 INTERNAL.
 */
export function unreadableRequestResponse(err: unknown, snapshot: string): Response {
  const refusal =
    err instanceof RequestError
      ? new ApiError('MALFORMED_REQUEST', `The request cannot be read (${err.message}). ${unreadableHint(err.message)}`, { reason: err.message })
      : internalError();
  const body = JSON.stringify(refusal.body());
  return new Response(body, { status: refusal.status, headers: { ...refusalHeaders(body, snapshot), Connection: 'close' } });
}

/** True when the request carries more than one Host header line. */
function hasSeveralHosts(request: IncomingMessage): boolean {
  const raw = request.rawHeaders;
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host' && ++hosts > 1) return true;
  }
  return false;
}

/**
 * `listener`, with the Host rules of HTTP: a request with more than one Host header is the
 * API's JSON 400 (RFC 9112 §3.2 requires it: which host is meant cannot be known; Node keeps
 * the first and answers), and an HTTP/1.0 request, where Host is optional (load balancers'
 * health checks send none), is answered as if it named the server (the adapter cannot make a
 * Request without one and answered 400 "HTTP/1.1 requires a Host header").
 */
export function applyHostRules(
  listener: (request: IncomingMessage, response: ServerResponse) => void,
  snapshot: () => string,
  serverHost: () => string,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    if (request.headers.host === undefined && request.httpVersionMajor === 1 && request.httpVersionMinor === 0) request.headers.host = serverHost();
    if (!hasSeveralHosts(request)) return listener(request, response);
    const refusal = new ApiError('MALFORMED_REQUEST', 'The request has more than one Host header (RFC 9112 §3.2): send exactly one, naming the server.', { reason: 'several Host headers' });
    const body = JSON.stringify(refusal.body());
    response.writeHead(refusal.status, { ...refusalHeaders(body, snapshot()), 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' });
    response.end(body);
  };
}
