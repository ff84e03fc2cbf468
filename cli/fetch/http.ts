/**
 * The one HTTP client every fetcher uses (undici): a User-Agent naming the project, timeouts on
 * connect, headers and every body chunk, redirects followed, HTTPS_PROXY/NO_PROXY honoured
 * (EnvHttpProxyAgent), mirror URL rewrites, and retries with exponential backoff that respect
 * `Retry-After`. Error bodies are read as text only for the message (NVD answers 4xx/5xx in
 * plain text, never JSON).
 */
import { createRequire } from 'node:module';
import { EnvHttpProxyAgent, interceptors, request, type Dispatcher } from 'undici';
import { FetchError, describeError, isAbortError } from './errors.ts';
import { realSleep, type RateLimiter, type Sleep } from './rate-limit.ts';

const version: string = createRequire(import.meta.url)('../../package.json').version;

export const DEFAULT_USER_AGENT = `vulnintel/${version} (self-hosted vulnerability intelligence fetcher; Node.js ${process.versions.node})`;

/** Statuses worth another try for any source. NVD adds 403, its throttling answer. */
export const RETRY_STATUSES: readonly number[] = [408, 429, 500, 502, 503, 504];

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
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
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

/** `Retry-After` as milliseconds from now: delta-seconds or an HTTP date; null if absent/garbled. */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  if (/^\s*\d+\s*$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

export function headerValue(headers: HttpResponse['headers'], name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

async function readSnippet(body: HttpResponse['body'], max = 300): Promise<string> {
  try {
    const text = await body.text();
    return text.replace(/\s+/g, ' ').trim().slice(0, max);
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
  private readonly rewrites: UrlRewrite[];
  private readonly dispatcher: Dispatcher;
  readonly sleep: Sleep;
  private readonly now: () => number;
  private readonly log: (message: string) => void;

  constructor(opts: HttpClientOptions = {}) {
    this.userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.retries = opts.retries ?? 4;
    this.backoffMs = opts.backoffMs ?? 2_000;
    this.maxRetryWaitMs = opts.maxRetryWaitMs ?? 120_000;
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
      interceptors.redirect({ maxRedirections: 5, stripHeadersOnCrossOriginRedirect: ['authorization', 'apikey'] }),
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
   * GET with retries. Resolves with any 2xx or 304 (body unread: the caller streams it);
   * throws HttpStatusError for other statuses once retries are spent, FetchError for network
   * failures, and the AbortError itself when `signal` fires.
   */
  async get(url: string, opts: GetOptions = {}): Promise<HttpResponse> {
    const target = this.rewrite(url);
    const retryOn = opts.retryOn ?? RETRY_STATUSES;
    const headers = { 'user-agent': this.userAgent, ...opts.headers };
    for (let attempt = 0; ; attempt++) {
      opts.signal?.throwIfAborted();
      await opts.limiter?.acquire(opts.signal);
      let res: Dispatcher.ResponseData;
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
        if (attempt >= this.retries) {
          throw new FetchError(`GET ${target}: ${describeError(err)}${attempt > 0 ? ` after ${attempt + 1} attempts` : ''}`);
        }
        const wait = Math.min(this.backoff(attempt), this.maxRetryWaitMs);
        this.log(`  ${new URL(target).host}: ${describeError(err)}; retrying in ${Math.round(wait / 1000)} s`);
        await this.sleep(wait, opts.signal);
        continue;
      }
      const status = res.statusCode;
      if ((status >= 200 && status < 300) || status === 304) return { status, headers: res.headers, body: res.body, url: target };
      // NVD puts its reason in a `message` header and often sends an empty body.
      const detail = (await readSnippet(res.body)) || headerValue(res.headers, 'message') || '';
      if (retryOn.includes(status) && attempt < this.retries) {
        const hinted = parseRetryAfter(res.headers['retry-after'], this.now());
        const wait = Math.min(hinted ?? this.backoff(attempt), this.maxRetryWaitMs);
        this.log(`  ${new URL(target).host}: HTTP ${status}; retrying in ${Math.round(wait / 1000)} s${hinted !== null ? ' (Retry-After)' : ''}`);
        await this.sleep(wait, opts.signal);
        continue;
      }
      throw new HttpStatusError(target, status, detail, attempt + 1);
    }
  }

  /** GET and parse JSON (a 2xx is required). `what` names the document in errors. */
  async getJson(url: string, what: string, opts: GetOptions = {}): Promise<unknown> {
    const res = await this.get(url, { ...opts, headers: { accept: 'application/json', ...opts.headers } });
    if (res.status === 304) {
      await res.body.dump();
      throw new FetchError(`${what}: unexpected 304 from ${res.url}`);
    }
    const text = await res.body.text();
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new FetchError(`${what}: malformed JSON from ${res.url} (${(err as Error).message})`);
    }
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}
