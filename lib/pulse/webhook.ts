/**
 * Webhook requests (PULSE §4–§5): a JSON POST signed with the subscription's secret.
 *
 * Headers of every request:
 *   Content-Type: application/json
 *   User-Agent: vulnintel-pulse
 *   X-Vulnintel-Event: ping | changes
 *   X-Vulnintel-Delivery: <delivery id> (the same on every retry of one delivery: dedupe on it)
 *   X-Vulnintel-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>
 * A receiver recomputes v1 over the raw body and refuses a timestamp older than a few minutes.
 * No redirect is followed; the answer's body is discarded after at most 64 KiB. A refusal's
 * `Retry-After` (429, 503: seconds or an HTTP date) is read, so notify waits at least that long.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { request } from 'undici';
import { parseRetryAfter } from '../retry-after.ts';
import { checkWebhookUrl, parseWebhookUrl, WebhookTargetError } from './ssrf.ts';

export const SIGNATURE_HEADER = 'X-Vulnintel-Signature';
export const EVENT_HEADER = 'X-Vulnintel-Event';
export const DELIVERY_HEADER = 'X-Vulnintel-Delivery';

export function signPayload(secret: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${mac}`;
}

/** For receivers (and tests): true when the header signs this body and is at most `toleranceSeconds` old. */
export function verifySignature(secret: string, header: string | undefined, body: string, nowSeconds: number, toleranceSeconds = 300): boolean {
  if (!header) return false;
  const parts = new Map(header.split(',').map((part) => part.trim().split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1');
  if (!Number.isInteger(t) || !v1 || Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = Buffer.from(signPayload(secret, t, body).split('v1=')[1]!, 'hex');
  const given = Buffer.from(v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export interface WebhookResult {
  ok: boolean;
  /** HTTP status, when one came back. */
  status: number | null;
  /** 410 Gone: the receiver says this webhook no longer exists. */
  gone: boolean;
  /** A refusal's `Retry-After`, in milliseconds from the request's time; null when it had none (or an unreadable one). */
  retryAfterMs: number | null;
  error: string | null;
}

export interface WebhookRequest {
  url: string;
  secret: string;
  event: 'ping' | 'changes';
  deliveryId: string;
  body: string;
  dispatcher: Dispatcher;
  allowPrivate: boolean;
  timeoutMs: number;
  nowSeconds: number;
}

export async function postWebhook(req: WebhookRequest): Promise<WebhookResult> {
  try {
    const url = parseWebhookUrl(req.url);
    await checkWebhookUrl(url, req.allowPrivate, req.timeoutMs);
    const res = await request(url, {
      method: 'POST',
      dispatcher: req.dispatcher,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'vulnintel-pulse',
        [EVENT_HEADER.toLowerCase()]: req.event,
        [DELIVERY_HEADER.toLowerCase()]: req.deliveryId,
        [SIGNATURE_HEADER.toLowerCase()]: signPayload(req.secret, req.nowSeconds, req.body),
      },
      body: req.body,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
      signal: AbortSignal.timeout(req.timeoutMs),
    });
    await res.body.dump({ limit: 65_536 }).catch(() => {});
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    return {
      ok,
      status: res.statusCode,
      gone: res.statusCode === 410,
      retryAfterMs: ok ? null : parseRetryAfter(res.headers['retry-after'], req.nowSeconds * 1000),
      error: ok ? null : `HTTP ${res.statusCode}`,
    };
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause;
    const reason = err instanceof WebhookTargetError ? err : cause instanceof WebhookTargetError ? cause : err;
    const message = (reason as Error).message || String(reason);
    return { ok: false, status: null, gone: false, retryAfterMs: null, error: (reason as Error).name === 'TimeoutError' ? `no answer within ${req.timeoutMs} ms` : message };
  }
}
