/**
 * `vulnintel notify` (PULSE §5): delivers the changes of the published snapshot to every
 * confirmed, active subscription. Run after each publish by `update` and `poll`, or alone
 * (cron); serving replicas never run it.
 *
 * Per subscription and run, at most one message:
 *   - realtime: the matches among changes detected after its cursor (builds not processed yet);
 *   - daily / weekly: when a new period began, the matches since its last digest.
 * Never twice, never lost: the ledger row (subscription, period) is written before sending
 * (its UNIQUE key stops a concurrent notifier; it is written only while the subscription's
 * cursor is where its range starts, which stops a run holding an older read of the subscription,
 * on an older snapshot too), then marked sent — moving the cursor in the same
 * transaction — or failed with the next attempt time. A failed delivery is retried with the
 * same range of changes, with exponential backoff, until 24 hours after its first attempt, then
 * given up (shown on the manage page); a webhook refusing with `Retry-After` (429, 503) is not
 * tried again before that time (at most RETRY_MAX_INTERVAL_MS later). A webhook answering 410 Gone is paused; a message the
 * mail server refuses as too large (552) is given up at once. An e-mail refused otherwise,
 * "550 5.1.1 no such mailbox" included, is retried like any failure (PULSE §5 pauses a webhook
 * answering 410 only): the manage page says what the server said. When the mail server itself
 * fails MAIL_SERVER_FAILURES times in a row (unreachable, silent, dropping connections), the run
 * tries no other e-mail: those subscriptions wait for the next run, untouched.
 */
import type { ChangeRow } from '../changes/model.ts';
import { ChangeIndex } from './change-index.ts';
import { formatCount, formatDuration, info, progress } from '../log.ts';
import { readCurrentChanges } from './changes-source.ts';
import type { PulseLinks } from './links.ts';
import type { Mailer } from './mailer.ts';
import { mailServerFailed, messageTooLarge, sendFailureWords } from './smtp-replies.ts';
import { composeMessage, withManageLink, type AlertMessage } from './message.ts';
import { periodKey } from './periods.ts';
import { UNCONFIRMED_TTL_MS } from './service.ts';
import { webhookDispatcher } from './ssrf.ts';
import type { PulseStore } from './store/store.ts';
import { hashToken, newId, newToken } from './tokens.ts';
import type { Cadence, Delivery, Subscription } from './types.ts';
import { postWebhook } from './webhook.ts';
import { webhookBody } from './webhook-body.ts';

export const RETRY_BASE_MS = 5 * 60_000;
export const RETRY_MAX_INTERVAL_MS = 4 * 3600_000;
export const RETRY_WINDOW_MS = 24 * 3600_000;
/**
 * A row `sending` for less than this may be in flight in another notifier (cron's run and the
 * one `update` starts overlap): it is left alone, not sent again. Far above the longest an
 * attempt takes (an e-mail 2 minutes in all, mailer.ts; a webhook 10 s), so only a run that
 * died while sending leaves a row this old, and the next run after it sends that range again.
 */
export const SENDING_LEASE_MS = 10 * 60_000;
/**
 * Failures of the mail server itself in a row (smtp-replies.ts mailServerFailed) after which a
 * run tries no other e-mail. Each such failure costs up to the mailer's timeout (30 s) on one of
 * its 4 connections: a mail server behind a firewall that drops packets held a run 30 s per 4
 * e-mail subscriptions (10,000 of them: 21 hours), every webhook waiting behind them, and
 * `update` or `poll`, which wait for their notify, with it.
 */
export const MAIL_SERVER_FAILURES = 3;
/** Webhook bodies above this are cut down (webhook-body.ts; the `text` says so). */
export { MAX_WEBHOOK_BODY_BYTES } from './webhook-body.ts';

export interface NotifyOptions {
  dataDir: string;
  store: PulseStore;
  links: PulseLinks;
  /** Null: e-mail subscriptions wait (counted as skipped) until notify runs with --smtp. */
  mailer: Mailer | null;
  allowPrivateWebhooks: boolean;
  now?: () => Date;
  webhookTimeoutMs?: number;
  /** Subscriptions delivered to at once (default 8). */
  concurrency?: number;
  /** Use these changes instead of reading the published snapshot's (benchmarks). */
  changes?: readonly ChangeRow[];
}

export interface NotifySummary {
  buildId: string | null;
  changes: number;
  subscriptions: number;
  /** Subscriptions with a message to send this run (new or retried). */
  matched: number;
  sent: number;
  failed: number;
  retried: number;
  /** Failed earlier, next attempt not due yet. */
  waiting: number;
  /** Deliveries another notifier is sending right now (SENDING_LEASE_MS), left to it. */
  inFlight: number;
  gaveUp: number;
  paused: number;
  /** E-mail subscriptions left for a run with --smtp. */
  skipped: number;
  /** E-mail subscriptions left for the next run: the mail server failed MAIL_SERVER_FAILURES times in a row. */
  mailDeferred: number;
  ms: number;
}

/**
 * Delay before attempt `attempts + 1`: 5 min, 10, 20, … at most 4 h; longer when the receiver
 * asked for it (`Retry-After`), still at most 4 h. It was ignored: a receiver answering 429
 * "Retry-After: 3600" (Slack's rate limit) was hit again after 5, 15 and 35 minutes, each
 * attempt refused again and counted against the 24 hours.
 */
export function retryDelayMs(attempts: number, retryAfterMs: number | null = null): number {
  const backoff = Math.min(RETRY_MAX_INTERVAL_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1));
  return retryAfterMs === null ? backoff : Math.max(backoff, Math.min(RETRY_MAX_INTERVAL_MS, retryAfterMs));
}

/**
 * The digest period a finished delivery completes for its subscription: its own key when it is
 * a period of the subscription's cadence, else null (the period is left alone). A delivery made
 * before the cadence was changed (retried after) is no digest of the new cadence: recorded as
 * one (`build:b1` as a daily sub's last period), the next run sent a digest at once.
 */
function ownPeriod(sub: Subscription, delivery: Delivery): string | null {
  return sub.cadence !== 'realtime' && delivery.periodKey.startsWith(`${sub.cadence}:`) ? delivery.periodKey : null;
}

/** The cadence a delivery was made for, from its key (`build:…` realtime, `daily:…`, `weekly:…`): a retry says what it is even after the cadence changed. */
function deliveryCadence(delivery: Delivery): Cadence {
  return delivery.periodKey.startsWith('daily:') ? 'daily' : delivery.periodKey.startsWith('weekly:') ? 'weekly' : 'realtime';
}

interface SendOutcome {
  ok: boolean;
  /** The webhook answered 410 Gone: the subscription is paused, saying so (WEBHOOK_GONE). */
  gone: boolean;
  /** The message itself is refused for good (too large: smtp-replies.ts messageTooLarge): sending it again fails again. */
  refused: boolean;
  /** The webhook's `Retry-After`: not to be tried again before then. */
  retryAfterMs: number | null;
  error: string | null;
}

const WEBHOOK_GONE = 'the webhook answered 410 Gone; resume it once it exists again';

export async function runNotify(opts: NotifyOptions): Promise<NotifySummary> {
  const started = performance.now();
  const now = opts.now ?? (() => new Date());
  const { store, links } = opts;
  const runAt = now();
  await store.purgeExpired(new Date(runAt.getTime() - UNCONFIRMED_TTL_MS).toISOString(), runAt.toISOString());

  const subscriptions = await store.activeSubscriptions();
  const oldestCursor = subscriptions.reduce<string | null>((min, s) => (min === null || s.cursorAt < min ? s.cursorAt : min), null);
  const source = opts.changes
    ? { buildId: null, changes: [...opts.changes].sort((a, b) => (a.detected_at < b.detected_at ? -1 : a.detected_at > b.detected_at ? 1 : 0)) }
    : oldestCursor === null
      ? { buildId: null, changes: [] as ChangeRow[] }
      : await readCurrentChanges(opts.dataDir, oldestCursor);
  const changes = source.changes;
  const index = new ChangeIndex(changes);
  const newest = changes.at(-1)?.detected_at ?? null;

  const summary: NotifySummary = {
    buildId: source.buildId,
    changes: changes.length,
    subscriptions: subscriptions.length,
    matched: 0,
    sent: 0,
    failed: 0,
    retried: 0,
    waiting: 0,
    inFlight: 0,
    gaveUp: 0,
    paused: 0,
    skipped: 0,
    mailDeferred: 0,
    ms: 0,
  };
  const timeoutMs = opts.webhookTimeoutMs ?? 10_000;
  const dispatcher = webhookDispatcher(opts.allowPrivateWebhooks, timeoutMs);
  const bar = progress('notify', subscriptions.length, 'subscriptions');
  // Subscriptions with the same filter get the same matches (ChangeIndex memo): compose once.
  const composed = new WeakMap<readonly ChangeRow[], Map<string, AlertMessage>>();
  const messageFor = (sub: Subscription, delivery: Delivery, matched: readonly ChangeRow[]): AlertMessage => {
    let byPeriod = composed.get(matched);
    if (!byPeriod) composed.set(matched, (byPeriod = new Map()));
    const cadence = deliveryCadence(delivery);
    const key = `${cadence}|${delivery.periodKey}`;
    let message = byPeriod.get(key);
    if (!message) byPeriod.set(key, (message = composeMessage(matched, { cadence, periodKey: delivery.periodKey, links })));
    return message;
  };

  // The mail server's own failures in a row (a message it took, or refused by itself, ends the run of them).
  let mailServerFailures = 0;

  async function send(sub: Subscription, delivery: Delivery, matched: readonly ChangeRow[]): Promise<SendOutcome> {
    const at = now();
    if (sub.channel === 'email') {
      // Each message gets a manage link of its own (tokens are stored hashed: an old one cannot be re-shown).
      const token = newToken();
      await store.addToken({ tokenHash: hashToken(token), subscriptionId: sub.id, purpose: 'manage', createdAt: at.toISOString(), expiresAt: null });
      const message = withManageLink(messageFor(sub, delivery, matched), links.manage(token));
      try {
        await opts.mailer!.send({
          to: sub.address,
          subject: message.subject,
          text: message.text,
          html: message.html,
          headers: {
            'List-Unsubscribe': `<${links.unsubscribe(token)}>`,
            'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
            'X-Vulnintel-Delivery': delivery.id,
          },
          // The delivery's, on every attempt: a message sent again because its success could
          // not be told (the server's answer lost, a run dying before recording it) is the same
          // message to mail systems, which show it once.
          messageId: `<${delivery.id}@${new URL(links.base).hostname}>`,
        });
        mailServerFailures = 0;
        return { ok: true, gone: false, refused: false, retryAfterMs: null, error: null };
      } catch (err) {
        mailServerFailures = mailServerFailed(err) ? mailServerFailures + 1 : 0;
        // The ledger (shown on the manage page) gets words of ours; the log, the server's own.
        info(`  ! ${sub.id}: SMTP: ${(err as Error).message}`);
        // Not paused on a refused recipient: a mail server's 5.1.1 is also what a relay says of
        // a mailbox it cannot verify for now, and smtp-server's word for any recipient refused.
        return { ok: false, gone: false, refused: messageTooLarge(err), retryAfterMs: null, error: sendFailureWords(err) };
      }
    }
    const message = messageFor(sub, delivery, matched);
    const result = await postWebhook({
      url: sub.address,
      secret: sub.secret ?? '',
      event: 'changes',
      deliveryId: delivery.id,
      body: webhookBody(message, delivery, deliveryCadence(delivery)),
      dispatcher,
      allowPrivate: opts.allowPrivateWebhooks,
      timeoutMs,
      nowSeconds: Math.floor(at.getTime() / 1000),
    });
    return { ok: result.ok, gone: result.gone, refused: false, retryAfterMs: result.retryAfterMs, error: result.error };
  }

  async function attempt(sub: Subscription, delivery: Delivery, matched: readonly ChangeRow[]): Promise<void> {
    const outcome = await send(sub, delivery, matched);
    const at = now();
    const digestPeriod = ownPeriod(sub, delivery);
    if (outcome.ok) {
      summary.sent++;
      try {
        await store.finishDelivery(delivery.id, { status: 'sent', at: at.toISOString(), cursorAt: delivery.rangeTo, lastPeriod: digestPeriod });
      } catch (err) {
        // Sent: only the ledger could not say so (the store's disk full). It was counted as a
        // failed delivery and logged with the store's words ("nothing was changed"), though the
        // message had gone; the row stays `sending`, and past the lease a later run sends it
        // again, under the same delivery id and Message-ID (receivers can tell it is the same).
        info(`  ! ${sub.id}: sent, but the store could not record it (${(err as Error).message}); a run after ${SENDING_LEASE_MS / 60_000} minutes sends it again, with the same delivery id`);
      }
    } else if (outcome.gone) {
      await store.finishDelivery(delivery.id, {
        status: 'abandoned',
        at: at.toISOString(),
        error: outcome.error ?? 'HTTP 410',
        cursorAt: delivery.rangeTo,
        lastPeriod: digestPeriod,
        pauseReason: WEBHOOK_GONE,
      });
      summary.failed++;
      summary.paused++;
      info(`  ! ${sub.id}: paused, ${WEBHOOK_GONE}`);
    } else if (outcome.refused) {
      // Retried for 24 hours, the same message met the same refusal each time; the next build's
      // message is another one, so the subscription goes on.
      await store.finishDelivery(delivery.id, {
        status: 'abandoned',
        at: at.toISOString(),
        error: `not sent, not to be tried again: ${outcome.error ?? 'SMTP 5xx'}`,
        cursorAt: delivery.rangeTo,
        lastPeriod: digestPeriod,
        pauseReason: null,
      });
      summary.failed++;
    } else {
      await store.finishDelivery(delivery.id, { status: 'failed', at: at.toISOString(), error: outcome.error ?? 'failed', nextAttemptAt: new Date(at.getTime() + retryDelayMs(delivery.attempts, outcome.retryAfterMs)).toISOString() });
      summary.failed++;
    }
  }

  async function processOne(sub: Subscription): Promise<void> {
    if (sub.channel === 'email' && !opts.mailer) {
      summary.skipped++;
      return;
    }
    if (sub.channel === 'email' && mailServerFailures >= MAIL_SERVER_FAILURES) {
      summary.mailDeferred++;
      return;
    }
    const at = now();
    const open = await store.openDelivery(sub.id);
    if (open) {
      const expired = at.getTime() - Date.parse(open.firstAttemptAt) > RETRY_WINDOW_MS;
      if (expired) {
        await store.finishDelivery(open.id, {
          status: 'abandoned',
          at: at.toISOString(),
          error: `given up after ${open.attempts} attempts over 24 hours: ${open.lastError ?? 'interrupted'}`,
          cursorAt: open.rangeTo,
          lastPeriod: ownPeriod(sub, open),
          pauseReason: null,
        });
        summary.gaveUp++;
        sub = (await store.getSubscription(sub.id)) ?? sub;
      } else if (open.status === 'failed' && open.nextAttemptAt !== null && open.nextAttemptAt > at.toISOString()) {
        summary.waiting++;
        return;
      } else if (open.status === 'sending' && at.getTime() - Date.parse(open.lastAttemptAt ?? open.firstAttemptAt) < SENDING_LEASE_MS) {
        summary.inFlight++;
        return;
      } else {
        // A failed row whose time came, or one a run died sending (past the lease): same range
        // again, matched with the filter as it is now (its owner may have edited it since).
        const matched = index.matches(sub.filter, open.rangeFrom, open.rangeTo);
        if (matched.length === 0) {
          // The edited filter matches none of the range: nothing is sent (it sent an empty alert,
          // "0 changes on 0 subjects"); the range is closed as not sent, saying why.
          await store.finishDelivery(open.id, {
            status: 'abandoned',
            at: at.toISOString(),
            error: `not sent: the filter was changed after the first attempt (${open.lastError ?? 'interrupted'}) and matches none of the changes it was to carry`,
            cursorAt: open.rangeTo,
            lastPeriod: ownPeriod(sub, open),
            pauseReason: null,
          });
          return;
        }
        const retry = await store.retryDelivery(open.id, open.attempts, at.toISOString());
        if (!retry) return; // another notifier is retrying it
        summary.matched++;
        summary.retried++;
        await attempt(sub, retry, matched);
        return;
      }
    }

    // `sub` was read when the run began: the store writes below only while its cursor is still
    // the one read (another run may have delivered to it since, or it was paused or deleted).
    const period = periodKey(sub.cadence, at);
    if (period !== null && sub.lastPeriod === period) return; // this period's digest is done
    if (newest === null || newest <= sub.cursorAt) {
      if (period !== null) await store.advanceSubscription(sub.id, sub.cursorAt, { lastPeriod: period }, at.toISOString());
      return;
    }
    const matched = index.matches(sub.filter, sub.cursorAt, newest);
    if (matched.length === 0) {
      await store.advanceSubscription(sub.id, sub.cursorAt, period === null ? { cursorAt: newest } : { cursorAt: newest, lastPeriod: period }, at.toISOString());
      return;
    }
    const delivery = await store.beginDelivery({
      id: newId(),
      subscriptionId: sub.id,
      // Realtime: named by the build of its first change. Two runs starting from one cursor
      // (their snapshots differing only in later builds) name it alike, so one of them writes it.
      periodKey: period ?? `build:${matched[0]!.build_id}`,
      rangeFrom: sub.cursorAt,
      rangeTo: newest,
      items: matched.length,
      at: at.toISOString(),
    });
    if (!delivery) return; // another notifier took this period or moved the cursor
    summary.matched++;
    await attempt(sub, delivery, matched);
  }

  try {
    let next = 0;
    const worker = async () => {
      while (next < subscriptions.length) {
        const sub = subscriptions[next++]!;
        try {
          await processOne(sub);
        } catch (err) {
          // One subscription's trouble (a store hiccup) must not stop the others; the next run retries it.
          summary.failed++;
          info(`  ! ${sub.id}: ${(err as Error).message}`);
        }
        bar.tick();
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 8) }, worker));
  } finally {
    bar.stop();
    await dispatcher.close();
  }
  summary.ms = performance.now() - started;
  if (summary.skipped > 0) info(`  ${formatCount(summary.skipped)} e-mail subscriptions wait for a run with --smtp`);
  if (summary.mailDeferred > 0) info(`  ! the mail server failed ${MAIL_SERVER_FAILURES} times in a row: ${formatCount(summary.mailDeferred)} e-mail subscriptions wait for the next run`);
  return summary;
}

/** The one summary line. */
export function formatNotifySummary(s: NotifySummary): string {
  const extra = [s.waiting ? `${s.waiting} waiting to retry` : '', s.inFlight ? `${s.inFlight} being sent by another run` : '', s.gaveUp ? `${s.gaveUp} given up` : '', s.paused ? `${s.paused} paused (address gone)` : '', s.skipped ? `${s.skipped} skipped (no SMTP)` : '', s.mailDeferred ? `${s.mailDeferred} e-mail left for the next run (mail server failing)` : '']
    .filter(Boolean)
    .join(', ');
  return `notify: ${formatCount(s.subscriptions)} subscriptions, ${formatCount(s.changes)} changes; ${formatCount(s.matched)} subscriptions matched, ${formatCount(s.sent)} messages sent, ${formatCount(s.failed)} failed, ${formatCount(s.retried)} retried${extra ? `; ${extra}` : ''} (${formatDuration(s.ms)})`;
}
