/**
 * The one HTTP client every fetcher uses (undici): a User-Agent naming the project, timeouts on
 * connect, headers and every body chunk, a least pace for every body (body-pace.ts), redirects
 * followed, HTTPS_PROXY/NO_PROXY honoured (EnvHttpProxyAgent), mirror URL rewrites, and retries
 * with exponential backoff that respect `Retry-After`. A network failure while the body is read
 * (connection reset, body timeout, a body too slow, truncated body) is retried like one before
 * the headers: every reader of a body goes through `exchange`, which owns the one retry loop.
 * Error bodies are read as text only for the message (NVD answers 4xx/5xx in plain text, never
 * JSON).
 */
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import { buffer, text } from 'node:stream/consumers';
import { EnvHttpProxyAgent, interceptors, request, type Dispatcher } from 'undici';
import { MIN_BODY_BYTES, pacedBody } from './body-pace.ts';
import { decodeBody } from './content-coding.ts';
import { FetchError, describeError, isAbortError } from './errors.ts';
import { realSleep, type RateLimiter, type Sleep } from './rate-limit.ts';
import { parseRetryAfter } from '../../lib/retry-after.ts';

const version: string = createRequire(import.meta.url)('../../package.json').version;

export const DEFAULT_USER_AGENT = `vulnintel/${version} (self-hosted vulnerability intelligence fetcher; Node.js ${process.versions.node})`;

/**
 * Statuses worth another try for any source. NVD adds 403, its throttling answer. 520–524 are
 * Cloudflare's answers for an origin that failed or timed out behind it (NVD's API answers 524
 * when its backend is slow, as aquasecurity/vuln-list-update#459 saw): transient like a 502/504.
 */
export const RETRY_STATUSES: readonly number[] = [408, 429, 500, 502, 503, 504, 520, 521, 522, 523, 524];

export interface UrlRewrite {
  /** A URL prefix, e.g. `https://github.com/`. */
  from: string;
  /** Its replacement, e.g. `https://mirror.example.com/github/`. */
  to: string;
}

export interface HttpClientOptions {
  userAgent?: string;
  timeoutMs?: number;
  /** Extra attempts after the first. */
  retries?: number;
  /** First backoff; doubles per attempt (with jitter). */
  backoffMs?: number;
  /** Upper bound of one wait, including a server's `Retry-After`. */
  maxRetryWaitMs?: number;
  /** Bytes of body every `timeoutMs` must bring, from the headers on (default MIN_BODY_BYTES, body-pace.ts). */
  minBodyBytes?: number;
  rewrites?: UrlRewrite[];
  /** Default: an EnvHttpProxyAgent (HTTPS_PROXY, HTTP_PROXY, NO_PROXY). */
  dispatcher?: Dispatcher;
  sleep?: Sleep;
  now?: () => number;
  /** Where retry notices go (default: nowhere). */
  log?: (message: string) => void;
}

export interface GetOptions {
  headers?: Record<string, string>;
  limiter?: RateLimiter;
  /** Statuses to retry (default RETRY_STATUSES). */
  retryOn?: readonly number[];
  /**
   * The least wait before retrying a status, in ms, whatever the backoff or `Retry-After` say
   * (NVD: a 403 means the budget of its rolling window is used up, by us or by another client on
   * the same address or key; a retry before that window has passed is refused again).
   */
  minRetryWaitMs?: Readonly<Record<number, number>>;
  signal?: AbortSignal;
}

export interface ExchangeOptions extends GetOptions {
  /**
   * Extra headers for one attempt, asked for just before it is sent (a resumed download adds
   * `Range` / `If-Range` for the bytes it already has). Replaces `headers` keys of the same name.
   */
  headersFor?: (attempt: number) => Record<string, string> | Promise<Record<string, string>>;
  /**
   * Asked after a network failure while `consume` read the body: true when this attempt got far
   * enough not to count against `retries` (a resumed download that grew). The count and the
   * backoff start again from the first retry.
   */
  progressed?: () => boolean;
}

/** A response read whole. */
export interface BodyResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Empty for a 304. */
  body: Buffer;
  url: string;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Read at a pace (body-pace.ts): a body slower than that fails like a reset. */
  body: Readable;
  /** The URL actually requested (after rewrites). */
  url: string;
}

export class HttpStatusError extends FetchError {
  constructor(
    readonly url: string,
    readonly status: number,
    detail: string,
    attempts: number,
  ) {
    super(`GET ${url}: HTTP ${status}${detail ? ` (${detail})` : ''}${attempts > 1 ? ` after ${attempts} attempts` : ''}`);
    this.name = 'HttpStatusError';
  }
}

/**
 * Milliseconds until a rate limit the answer says is used up resets: GitHub (its API, which the
 * CVE List's release listing reads) answers 403 or 429 with `x-ratelimit-remaining: 0` and
 * `x-ratelimit-reset` in epoch seconds, and asks clients to wait for that time rather than retry
 * (docs.github.com, "Rate limits for the REST API"). Null when the answer says no such thing.
 */
function rateLimitResetIn(headers: HttpResponse['headers'], now: number): number | null {
  if (headerValue(headers, 'x-ratelimit-remaining')?.trim() !== '0') return null;
  const reset = headerValue(headers, 'x-ratelimit-reset')?.trim();
  if (!reset || !/^\d+$/.test(reset)) return null;
  return Math.max(0, Number(reset) * 1000 - now);
}

export function headerValue(headers: HttpResponse['headers'], name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * A body that ended before its declared length. Transient like a reset: the retry loop tries
 * again (resuming where the server allows it).
 */
export class TruncatedBodyError extends Error {
  readonly code = 'BODY_TRUNCATED';
  constructor(received: number, declared: number) {
    super(`body ended after ${received} of ${declared} bytes`);
    this.name = 'TruncatedBodyError';
  }
}

/**
 * A 2xx whose body cannot be used, in a way another request may mend: an HTML error page the
 * API's front end answered with 200, JSON cut short under a matching Content-Length, an empty
 * body. A reader's `parse` (getParsed) throws it; it is retried like a network failure, and its
 * message makes the final error once the retries are spent.
 */
export class UnusableBodyError extends Error {
  readonly code = 'BODY_UNUSABLE';
  constructor(message: string) {
    super(message);
    this.name = 'UnusableBodyError';
  }
}

/**
 * What getBytes asks for: the JSON it reads whole (NVD's pages of 2,000 records, tens of MB each)
 * travels compressed, several times smaller. Streamed downloads (archives, already compressed)
 * ask for nothing, so their byte ranges stay those of the file.
 */
const ACCEPTED_ENCODINGS = 'gzip, deflate, br';

/** Redirects followed per request; the answer after that many is an error that says so. */
const MAX_REDIRECTS = 5;

/**
 * undici's refusals of a request it was given (UND_ERR_INVALID_ARG: among them a redirect back
 * to a URL already visited): no retry mends them, unlike every other UND_ERR_*.
 */
const PERMANENT_CODES = new Set(['UND_ERR_INVALID_ARG']);

const TRANSIENT_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'ERR_STREAM_PREMATURE_CLOSE', 'BODY_TRUNCATED', 'BODY_UNDECODABLE', 'BODY_TOO_SLOW', 'BODY_UNUSABLE']);

/** A failure of the connection (undici's UND_ERR_*, resets, timeouts, truncation), not of our own checks. */
export function isTransientNetworkError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && PERMANENT_CODES.has(code)) return false;
    if (typeof code === 'string' && (code.startsWith('UND_ERR_') || TRANSIENT_CODES.has(code))) return true;
  }
  return false;
}

/**
 * Worst case, in seconds, for a host that accepts connections and never answers: every attempt
 * waits the full timeout, and the backoffs between them at their largest jitter (×1.25). A host
 * that sends its headers at once and then trickles costs the same (one timeout window of pace
 * per attempt, body-pace.ts). docs/fetching.md states the figure for the defaults.
 */
export function deadHostSeconds(http: { timeoutSeconds: number; retries: number; backoffSeconds: number; maxRetryWaitSeconds: number }): number {
  let total = (http.retries + 1) * http.timeoutSeconds;
  for (let attempt = 0; attempt < http.retries; attempt++) total += Math.min(http.backoffSeconds * 2 ** attempt * 1.25, http.maxRetryWaitSeconds);
  return total;
}

async function readSnippet(body: HttpResponse['body'], max = 300): Promise<string> {
  try {
    return (await text(body)).replace(/\s+/g, ' ').trim().slice(0, max);
  } catch {
    return '';
  }
}

export class HttpClient {
  readonly userAgent: string;
  readonly timeoutMs: number;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly maxRetryWaitMs: number;
  private readonly minBodyBytes: number;
  private readonly rewrites: UrlRewrite[];
  private readonly dispatcher: Dispatcher;
  readonly sleep: Sleep;
  private readonly now: () => number;
  private readonly log: (message: string) => void;

  constructor(opts: HttpClientOptions = {}) {
    this.userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
    this.timeoutMs = opts.timeoutMs ?? 25_000;
    this.retries = opts.retries ?? 3;
    this.backoffMs = opts.backoffMs ?? 2_000;
    this.maxRetryWaitMs = opts.maxRetryWaitMs ?? 120_000;
    this.minBodyBytes = opts.minBodyBytes ?? MIN_BODY_BYTES;
    this.rewrites = opts.rewrites ?? [];
    this.sleep = opts.sleep ?? realSleep;
    this.now = opts.now ?? Date.now;
    this.log = opts.log ?? (() => {});
    const base =
      opts.dispatcher ??
      new EnvHttpProxyAgent({
        connect: { timeout: this.timeoutMs },
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
    // Credentials must not follow a redirect to another host (GitHub assets → object storage).
    this.dispatcher = base.compose(
      interceptors.redirect({ maxRedirections: MAX_REDIRECTS, stripHeadersOnCrossOriginRedirect: ['authorization', 'apikey'] }),
    );
  }

  /** Applies the configured mirror rewrites (first matching prefix wins). */
  rewrite(url: string): string {
    for (const r of this.rewrites) if (url.startsWith(r.from)) return r.to + url.slice(r.from.length);
    return url;
  }

  private backoff(attempt: number): number {
    const base = this.backoffMs * 2 ** attempt;
    return Math.round(base * (0.75 + Math.random() * 0.5));
  }

  /**
   * One GET with the retry loop around both halves of the exchange: the request up to the
   * headers, and `consume`, which reads the body. Retried: network failures on either side
   * (see isTransientNetworkError) and `retryOn` statuses. `consume` receives every 2xx and 304;
   * it throws FetchError for a body it rejects (not retried). `retries` bounds the failed
   * attempts since the last one that made progress (`progressed`). The final error names the
   * URL; an abort (`signal`) is rethrown as is.
   */
  async exchange<T>(url: string, opts: ExchangeOptions, consume: (res: HttpResponse) => Promise<T>): Promise<T> {
    const target = this.rewrite(url);
    const retryOn = opts.retryOn ?? RETRY_STATUSES;
    // `attempt` counts every try; `failed` the failures since the last attempt that progressed.
    for (let attempt = 0, failed = 0; ; attempt++) {
      opts.signal?.throwIfAborted();
      const headers = { 'user-agent': this.userAgent, ...opts.headers, ...(await opts.headersFor?.(attempt)) };
      const booking = await opts.limiter?.acquire(opts.signal);
      let failure: unknown;
      /** This attempt failed after adding enough to a download not to count as a failure. */
      let progressed = false;
      let res: Dispatcher.ResponseData | undefined;
      try {
        res = await request(target, {
          method: 'GET',
          headers,
          dispatcher: this.dispatcher,
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs,
          ...(opts.signal ? { signal: opts.signal } : {}),
        });
      } catch (err) {
        if (isAbortError(err) || opts.signal?.aborted) throw err;
        // A redirect loop was retried four times, and its message (undici's) spoke of Clients
        // and Pools; a loop is the server's configuration and stays until someone changes it.
        if (/redirect loop/i.test((err as Error)?.message ?? '')) {
          throw new FetchError(`GET ${target}: redirect loop (a redirect led back to a URL already visited)`);
        }
        if (PERMANENT_CODES.has(String((err as { code?: unknown })?.code))) throw new FetchError(`GET ${target}: ${describeError(err)}`);
        failure = err;
      } finally {
        // Booked once answered (or failed): the server has counted it by then (rate-limit.ts).
        booking?.();
      }
      if (res) {
        const status = res.statusCode;
        const body = pacedBody(res.body, this.timeoutMs, this.minBodyBytes);
        if ((status >= 200 && status < 300) || status === 304) {
          try {
            return await consume({ status, headers: res.headers, body, url: target });
          } catch (err) {
            // Whatever is left of the body is not wanted: the connection goes (and its pace timer).
            body.destroy();
            if (isAbortError(err) || opts.signal?.aborted) throw err;
            if (err instanceof FetchError) throw err;
            if (!isTransientNetworkError(err)) throw new FetchError(`GET ${target}: ${describeError(err)}`);
            failure = err;
            progressed = opts.progressed?.() ?? false;
          }
        } else {
          // NVD puts its reason in a `message` header and often sends an empty body.
          let detail = (await readSnippet(body)) || headerValue(res.headers, 'message') || '';
          // A 3xx reaches here only when it was not followed: say why, and where it pointed.
          if (status >= 300 && status < 400) {
            const location = headerValue(res.headers, 'location');
            detail = location ? `more than ${MAX_REDIRECTS} redirects, the last to ${location}` : 'a redirect without a Location header';
          }
          const now = this.now();
          const resetIn = rateLimitResetIn(res.headers, now);
          // A used-up rate limit is retried at its reset whatever the status (GitHub says 403),
          // when that is within one wait; later than that, the error says when.
          const waitable = resetIn !== null && resetIn <= this.maxRetryWaitMs;
          if (resetIn !== null && !waitable) {
            const host = new URL(target).host;
            detail = `${detail ? `${detail}; ` : ''}${host}'s rate limit is used up until ${new Date(now + resetIn).toISOString()}${host === 'api.github.com' ? ' (GITHUB_TOKEN raises GitHub\'s limit)' : ''}`;
          }
          // GitHub's secondary rate limit answers 403 (or 429) with Retry-After and no used-up
          // counter, and asks for a retry after that many seconds ("Rate limits for the REST
          // API"): a 403 that says when to come back is a throttle, not a refusal.
          const throttled = status === 403 && headerValue(res.headers, 'retry-after') !== undefined;
          const retryable = waitable || (resetIn === null && (retryOn.includes(status) || throttled));
          if (!retryable || failed >= this.retries) throw new HttpStatusError(target, status, detail, attempt + 1);
          // `Retry-After: 0` is no wait at all: NVD sends it with its 429 and 403 throttling
          // answers (aquasecurity/vuln-list-update#396), and taken literally every retry went out
          // at once and was refused again. It counts as no hint: the backoff applies.
          const hinted = parseRetryAfter(res.headers['retry-after'], now) || null;
          const least = opts.minRetryWaitMs?.[status] ?? 0;
          const proposed = hinted ?? (waitable ? resetIn + 1000 : this.backoff(failed));
          const wait = Math.min(Math.max(proposed, least), this.maxRetryWaitMs);
          const why = proposed < least ? ' (rate window)' : hinted !== null ? ' (Retry-After)' : waitable ? ' (rate limit reset)' : '';
          this.log(`  ${new URL(target).host}: HTTP ${status}; retrying in ${Math.round(wait / 1000)} s${why}`);
          await this.sleep(wait, opts.signal);
          failed++;
          continue;
        }
      }
      // A network failure, before the headers or while reading the body.
      if (progressed) failed = 0;
      else if (failed >= this.retries) {
        throw new FetchError(`GET ${target}: ${describeError(failure)}${attempt > 0 ? ` after ${attempt + 1} attempts` : ''}`);
      }
      const wait = Math.min(this.backoff(failed), this.maxRetryWaitMs);
      if (!progressed) failed++;
      this.log(`  ${target}: ${describeError(failure)}; retrying in ${Math.round(wait / 1000)} s`);
      await this.sleep(wait, opts.signal);
    }
  }

  /**
   * GET and read the whole body, retrying failures on both sides of the headers. The body is
   * asked for compressed (ACCEPTED_ENCODINGS) and returned decoded; a caller's own
   * `accept-encoding` wins.
   */
  async getBytes(url: string, opts: ExchangeOptions = {}): Promise<BodyResponse> {
    return (await this.getParsed(url, opts, () => null)).res;
  }

  /**
   * getBytes, and `parse` of the answer inside the retry loop: a parse that throws
   * UnusableBodyError (see parseJsonOrRetry) asks again, like a network failure.
   */
  getParsed<T>(url: string, opts: ExchangeOptions, parse: (res: BodyResponse) => T): Promise<{ res: BodyResponse; value: T }> {
    const asked = Object.keys(opts.headers ?? {}).some((name) => name.toLowerCase() === 'accept-encoding');
    const headers = asked ? opts.headers : { 'accept-encoding': ACCEPTED_ENCODINGS, ...opts.headers };
    return this.exchange(url, { ...opts, headers }, async (res) => {
      const whole = await readWhole(res);
      return { res: whole, value: parse(whole) };
    });
  }

  /** GET and parse JSON (a 2xx is required). `what` names the document in errors. */
  async getJson(url: string, what: string, opts: GetOptions = {}): Promise<unknown> {
    const res = await this.getBytes(url, { ...opts, headers: { accept: 'application/json', ...opts.headers } });
    if (res.status === 304) throw new FetchError(`${what}: unexpected 304 from ${res.url}`);
    return parseJsonBody(res.body, what, res.url);
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}

/** A body read whole and decoded; one shorter than its Content-Length is a TruncatedBodyError. */
async function readWhole(res: HttpResponse): Promise<BodyResponse> {
  if (res.status === 304) {
    await buffer(res.body);
    return { status: 304, headers: res.headers, body: Buffer.alloc(0), url: res.url };
  }
  const sent = await buffer(res.body);
  // Content-Length counts the bytes as sent, compressed or not.
  const declared = Number(headerValue(res.headers, 'content-length') ?? NaN);
  if (Number.isFinite(declared) && sent.length !== declared) throw new TruncatedBodyError(sent.length, declared);
  return { status: res.status, headers: res.headers, body: decodeBody(sent, headerValue(res.headers, 'content-encoding'), res.url), url: res.url };
}

/**
 * JSON.parse of an answer read by getParsed, for an API that answers JSON or nothing (NVD): an
 * empty or unparseable body throws UnusableBodyError, so it is asked for again. The message
 * names the document and, when it is not JSON, what the server said it sent (an HTML page).
 */
export function parseJsonOrRetry(res: BodyResponse, what: string): unknown {
  if (res.body.length === 0) throw new UnusableBodyError(`${what}: empty body (HTTP ${res.status})`);
  try {
    return JSON.parse(res.body.toString('utf8'));
  } catch (err) {
    const type = headerValue(res.headers, 'content-type');
    throw new UnusableBodyError(`${what}: malformed JSON (${(err as Error).message}${type && !/json/i.test(type) ? `; Content-Type ${type}` : ''})`);
  }
}

/** JSON.parse of a downloaded body, or a FetchError naming the document and the URL. */
export function parseJsonBody(body: Buffer, what: string, url: string): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new FetchError(`${what}: malformed JSON from ${url} (${(err as Error).message})`);
  }
}
