/**
 * The subscription service (PULSE §4): create, confirm, read, edit, pause, resume, delete,
 * unsubscribe, list deliveries, preview matches. The JSON API (api/pulse/routes.ts) and the
 * /pulse pages call it directly; it knows nothing of HTTP. Input is validated by input.ts and
 * refused with PulseInputError naming the field; abuse limits throw PulseLimitError.
 *
 * No accounts: a subscription is reached through capability tokens (128-bit, stored hashed).
 * E-mail: double opt-in (a confirmation link valid 48 h; unconfirmed ones are deleted after
 * 7 days). Webhook: must answer a signed ping with 2xx; its secret is shown once.
 */
import { minute } from '../calendar.ts';
import { changeMatches, type ChangeRow } from '../changes/model.ts';
import { escapeHtml } from '../html.ts';
import { PulseInputError, PulseLimitError, PulseNotFoundError, PulseUnavailableError } from './errors.ts';
import { parseCreate, parseFilter, parseUpdate } from './input.ts';
import type { PulseLinks } from './links.ts';
import type { Mailer } from './mailer.ts';
import { recipientRefusedForGood, recipientRefusedForNow } from './smtp-replies.ts';
import { periodKey } from './periods.ts';
import { checkWebhookUrl, parseWebhookUrl, webhookDispatcher, WebhookTargetError } from './ssrf.ts';
import type { PulseStore } from './store/store.ts';
import { hashToken, isWellFormedToken, newId, newToken, newWebhookSecret } from './tokens.ts';
import type { Cadence, Delivery, Subscription, TokenRecord } from './types.ts';
import { postWebhook } from './webhook.ts';

export const CONFIRM_TTL_MS = 48 * 3600_000;
export const UNCONFIRMED_TTL_MS = 7 * 24 * 3600_000;
const HOUR_MS = 3600_000;
/** The creation limits' fixed windows: clock hours. */
export const CREATE_WINDOW_MS = HOUR_MS;

/** What a confirmation link that cannot confirm says: unknown or expired, or used already. */
export const UNKNOWN_CONFIRMATION = 'This confirmation link is unknown or expired (links expire 48 hours after they are sent); subscribe again.';
const ALREADY_CONFIRMED =
  'This subscription is already confirmed: a confirmation link works once. Its manage link was shown when it was confirmed, and every alert e-mail carries it.';

export interface PulseLimits {
  /** Subscriptions one caller (api/ratelimit/caller.ts key) may create per hour. */
  createsPerCallerPerHour: number;
  /** Creations per hour for one e-mail address or webhook URL (bounds confirmation mails and pings). */
  createsPerAddressPerHour: number;
  /** Confirmed subscriptions one e-mail address or webhook URL may hold. */
  subscriptionsPerAddress: number;
}

/** The domains whose mailboxes ignore the dots of a name, one mailbox under either (Google's Gmail help). */
const GMAIL_DOMAINS: ReadonlySet<string> = new Set(['gmail.com', 'googlemail.com']);

/**
 * The mailbox an e-mail address reaches, as the per-address limits count it: lower case, and
 * without a sub-address (RFC 5233: `bob+alerts@` is delivered to `bob@` by Gmail, Fastmail,
 * Outlook, Postfix and most hosts), so that `bob+1@`, `bob+2@`, … do not each get an allowance.
 * A local part that starts with `+` is kept whole (no mailbox name before the tag). Gmail also
 * ignores the dots of a name and takes googlemail.com for gmail.com (b.o.b@googlemail.com is
 * bob@gmail.com): there the dots are dropped too, or each of a name's 2^(n-1) spellings had an
 * allowance of its own, every one delivered to the same inbox.
 */
function mailboxKey(address: string): string {
  const at = address.lastIndexOf('@');
  const local = address.slice(0, at);
  const tag = local.indexOf('+');
  const name = (tag > 0 ? local.slice(0, tag) : local).toLowerCase();
  const domain = address.slice(at + 1).toLowerCase();
  // The address is a dot-atom (input.ts): a name is never dots alone.
  return GMAIL_DOMAINS.has(domain) ? `${name.replaceAll('.', '')}@gmail.com` : `${name}@${domain}`;
}

export const DEFAULT_PULSE_LIMITS: PulseLimits = { createsPerCallerPerHour: 10, createsPerAddressPerHour: 5, subscriptionsPerAddress: 25 };

export interface PulseServiceOptions {
  store: PulseStore;
  links: PulseLinks;
  /** Null: e-mail subscriptions are refused (the server has no --smtp). */
  mailer: Mailer | null;
  allowPrivateWebhooks: boolean;
  /** The changes of the published snapshot (preview); absent: previews are empty. */
  changes?: () => Promise<readonly ChangeRow[]>;
  limits?: Partial<PulseLimits>;
  webhookTimeoutMs?: number;
  now?: () => Date;
  /** Told why a confirmation e-mail could not be sent (the caller is not: see create). */
  onMailError?: (err: unknown) => void;
}

export interface DeliveryView {
  period: string;
  status: Delivery['status'];
  changes: number;
  attempts: number;
  first_attempt_at: string;
  last_attempt_at: string;
  sent_at: string | null;
  next_attempt_at: string | null;
  error: string | null;
}

export interface SubscriptionView {
  channel: Subscription['channel'];
  address: string;
  cadence: Cadence;
  filter: Subscription['filter'];
  status: Subscription['status'];
  paused_reason: string | null;
  created_at: string;
  confirmed_at: string | null;
  /** A delivery problem the owner should know of (failing, or given up), else null. */
  problem: string | null;
  deliveries: DeliveryView[];
}

export interface CreateResult {
  subscription: SubscriptionView;
  /** Webhooks: the manage link (shown once; e-mail subscribers get theirs after confirming). */
  manage_url: string | null;
  /** Webhooks: the signing secret, shown once. */
  secret: string | null;
  /** E-mail: where the confirmation link went and until when it works. */
  confirmation: { sent_to: string; expires_at: string } | null;
}

export interface PreviewResult {
  days: number;
  total: number;
  by_kind: Record<string, number>;
  /** Up to 50, newest first. */
  changes: ChangeRow[];
}

function toDeliveryView(d: Delivery): DeliveryView {
  return {
    period: d.periodKey,
    status: d.status,
    changes: d.items,
    attempts: d.attempts,
    first_attempt_at: d.firstAttemptAt,
    last_attempt_at: d.lastAttemptAt,
    sent_at: d.sentAt,
    next_attempt_at: d.nextAttemptAt,
    error: d.lastError,
  };
}

/**
 * The delivery problem the owner should know of, from the latest delivery (failing, or given
 * up), else null; its times written by `time` (the JSON API's as stored, the manage page's as
 * people read them).
 */
export function deliveryProblem(
  latest: { status: string; first_attempt_at: string; last_attempt_at: string; error: string | null } | undefined,
  time: (iso: string) => string = (iso) => iso,
): string | null {
  if (!latest) return null;
  if (latest.status === 'failed') return `deliveries are failing since ${time(latest.first_attempt_at)} (${latest.error ?? 'error'}); retrying until 24 hours after the first attempt`;
  if (latest.status === 'abandoned') return `a delivery was given up at ${time(latest.last_attempt_at)}: ${latest.error ?? 'error'}`;
  return null;
}

function problemOf(deliveries: Delivery[]): string | null {
  const latest = deliveries[0];
  return deliveryProblem(latest && toDeliveryView(latest));
}

export class PulseService {
  readonly #opts: PulseServiceOptions;
  readonly #limits: PulseLimits;
  readonly #now: () => Date;
  #lastPurge = 0;

  constructor(opts: PulseServiceOptions) {
    this.#opts = opts;
    this.#limits = { ...DEFAULT_PULSE_LIMITS, ...opts.limits };
    this.#now = opts.now ?? (() => new Date());
  }

  get emailEnabled(): boolean {
    return this.#opts.mailer !== null;
  }

  async create(body: unknown, callerKey: string): Promise<CreateResult> {
    const input = parseCreate(body);
    const now = this.#now();
    const at = now.toISOString();
    const field = input.channel === 'email' ? 'email' : 'url';
    let addressKey: string;
    let url: URL | null = null;
    if (input.channel === 'email') {
      if (!this.#opts.mailer) throw new PulseInputError('channel', 'channel: e-mail subscriptions are not available on this server (it has no SMTP server configured); use a webhook');
      addressKey = mailboxKey(input.address);
    } else {
      try {
        url = parseWebhookUrl(input.address);
      } catch (err) {
        throw new PulseInputError('url', `url: ${(err as Error).message}`);
      }
      // The webhook itself (origin and path: Slack's and Teams' hooks share one host, each
      // channel its own path), not its host, which a stranger could fill for everyone.
      addressKey = `${url.origin}${url.pathname}`;
    }
    await this.#purgeNow(now);
    const window = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS);
    const retryAfter = Math.max(1, Math.ceil((window.getTime() + HOUR_MS - now.getTime()) / 1000));
    const counters = [`create:caller:${callerKey}`, `create:address:${addressKey}`] as const;
    const byCaller = await this.#opts.store.hitCounter(counters[0], window.toISOString());
    if (byCaller > this.#limits.createsPerCallerPerHour) {
      throw new PulseLimitError('caller', this.#limits.createsPerCallerPerHour, retryAfter, `At most ${this.#limits.createsPerCallerPerHour} subscriptions may be created per hour from one address; try again later.`);
    }
    const byAddress = await this.#opts.store.hitCounter(counters[1], window.toISOString());
    if (byAddress > this.#limits.createsPerAddressPerHour) {
      throw new PulseLimitError('address', this.#limits.createsPerAddressPerHour, retryAfter, `At most ${this.#limits.createsPerAddressPerHour} subscriptions may be created per hour for one ${input.channel === 'email' ? 'e-mail address' : 'webhook URL'}; try again later.`);
    }
    if ((await this.#opts.store.countSubscriptionsByAddress(addressKey)) >= this.#limits.subscriptionsPerAddress) {
      throw new PulseInputError(field, `${field}: this ${input.channel === 'email' ? 'address' : 'webhook URL'} already has ${this.#limits.subscriptionsPerAddress} subscriptions, the most allowed; delete one first`);
    }

    const id = newId();
    const manageToken = newToken();
    const tokens: TokenRecord[] = [{ tokenHash: hashToken(manageToken), subscriptionId: id, purpose: 'manage', createdAt: at, expiresAt: null }];
    const subscription: Subscription = {
      id,
      channel: input.channel,
      address: input.channel === 'email' ? input.address : url!.toString(),
      addressKey,
      secret: null,
      filter: input.filter,
      cadence: input.cadence,
      status: 'pending',
      pausedReason: null,
      createdAt: at,
      createdBy: callerKey,
      confirmedAt: null,
      cursorAt: await this.#startCursor(now),
      lastPeriod: periodKey(input.cadence, now),
      updatedAt: at,
    };

    if (input.channel === 'webhook') {
      subscription.secret = newWebhookSecret();
      subscription.status = 'active';
      subscription.confirmedAt = at;
      await this.#ping(subscription, now);
      await this.#opts.store.insertSubscription(subscription, tokens);
      return { subscription: await this.#view(subscription), manage_url: this.#opts.links.manage(manageToken), secret: subscription.secret, confirmation: null };
    }

    const confirmToken = newToken();
    const expiresAt = new Date(now.getTime() + CONFIRM_TTL_MS).toISOString();
    tokens.push({ tokenHash: hashToken(confirmToken), subscriptionId: id, purpose: 'confirm', createdAt: at, expiresAt });
    await this.#opts.store.insertSubscription(subscription, tokens);
    try {
      await this.#sendConfirmation(subscription, confirmToken, expiresAt);
    } catch (err) {
      await this.#opts.store.deleteSubscription(id);
      if (recipientRefusedForGood(err)) {
        // The address is at fault, not the service: a 400 naming it, and (nothing having been
        // sent) not counted against the caller or the address. The server's own words are not
        // passed on: they describe its set-up, not the caller's input.
        for (const key of counters) await this.#opts.store.unhitCounter(key, window.toISOString());
        throw new PulseInputError('email', 'email: the mail server refuses this address as a recipient, for good (SMTP 5xx); check the address. Nothing was stored.');
      }
      // The caller is not given the mailer's words: they describe the operator's set-up ("connect
      // ECONNREFUSED 10.0.0.5:587", "Invalid login: 535 …", a relay's internal name in its
      // reply), not the request, as the permanent refusal above says. The operator's log has them.
      this.#opts.onMailError?.(err);
      throw new PulseUnavailableError(
        recipientRefusedForNow(err)
          ? 'The mail server cannot take mail for this address right now (SMTP 4xx); nothing was stored, try again later.'
          : 'The confirmation e-mail could not be sent: the mail server cannot be reached or did not take it. Nothing was stored; try again later.',
        { cause: err },
      );
    }
    return { subscription: await this.#view(subscription), manage_url: null, secret: null, confirmation: { sent_to: subscription.address, expires_at: expiresAt } };
  }

  /**
   * Confirms an e-mail subscription and returns its manage link, once. A later use of the link
   * (its token stays until it expires, to be answered this way rather than "unknown link") says
   * the subscription is confirmed and mints nothing: a link that minted a permanent manage token
   * at every use for 48 hours gave one to whoever held the mail later (a forwarded message, a
   * scanner's log). A subscriber expects "already confirmed" from a second click, and a manage
   * link lost with the first page comes back in every alert mail. The store activates and adds
   * the one token in one transaction, only while pending: two concurrent uses mint one token.
   */
  async confirm(token: string): Promise<{ subscription: SubscriptionView; manage_url: string }> {
    const now = this.#now();
    const subscription = await this.#byToken(token, 'confirm', UNKNOWN_CONFIRMATION);
    const at = now.toISOString();
    const manage = newToken();
    const confirmed = await this.#opts.store.confirmSubscription(
      subscription.id,
      { status: 'active', confirmedAt: at, cursorAt: await this.#startCursor(now), lastPeriod: periodKey(subscription.cadence, now) },
      { tokenHash: hashToken(manage), subscriptionId: subscription.id, purpose: 'manage', createdAt: at, expiresAt: null },
      at,
    );
    if (!confirmed) throw new PulseNotFoundError(ALREADY_CONFIRMED);
    return { subscription: await this.#view((await this.#opts.store.getSubscription(subscription.id))!), manage_url: this.#opts.links.manage(manage) };
  }

  /**
   * What a confirmation link stands for, read only: the page a GET of the link shows (mail
   * scanners fetch links, so a GET changes nothing). Pending: its button confirms. Already
   * confirmed, unknown or expired: PulseNotFoundError saying which, as confirm() would, so a
   * used or dead link says so at once instead of offering a button that cannot work.
   */
  async checkConfirmation(token: string): Promise<void> {
    const subscription = await this.#byToken(token, 'confirm', UNKNOWN_CONFIRMATION);
    if (subscription.status !== 'pending') throw new PulseNotFoundError(ALREADY_CONFIRMED);
  }

  async get(token: string): Promise<SubscriptionView> {
    return this.#view(await this.#byToken(token, 'manage'));
  }

  async update(token: string, body: unknown): Promise<SubscriptionView> {
    const subscription = await this.#byToken(token, 'manage');
    const input = parseUpdate(body);
    const now = this.#now();
    const patch: Parameters<PulseStore['updateSubscription']>[1] = {};
    if (input.filter) patch.filter = input.filter;
    if (input.cadence && input.cadence !== subscription.cadence) {
      patch.cadence = input.cadence;
      // A new digest cadence starts with the next period, not with a digest right away.
      patch.lastPeriod = periodKey(input.cadence, now);
    }
    await this.#opts.store.updateSubscription(subscription.id, patch, now.toISOString());
    return this.#view((await this.#opts.store.getSubscription(subscription.id))!);
  }

  async pause(token: string): Promise<SubscriptionView> {
    const subscription = await this.#byToken(token, 'manage');
    if (subscription.status === 'pending') throw new PulseInputError('status', 'status: this subscription is not confirmed yet; follow the link in the confirmation e-mail first');
    const at = this.#now().toISOString();
    await this.#opts.store.updateSubscription(subscription.id, { status: 'paused', pausedReason: 'paused by its owner' }, at);
    return this.#view((await this.#opts.store.getSubscription(subscription.id))!);
  }

  /** Resumes from now on: what happened while paused is not sent (builds published from now on are). */
  async resume(token: string): Promise<SubscriptionView> {
    const subscription = await this.#byToken(token, 'manage');
    if (subscription.status === 'pending') throw new PulseInputError('status', 'status: this subscription is not confirmed yet; follow the link in the confirmation e-mail first');
    const now = this.#now();
    const at = now.toISOString();
    if (subscription.status === 'paused') {
      // Never behind where it was (a replica serving an older snapshot names an older build).
      const start = await this.#startCursor(now);
      const cursorAt = start > subscription.cursorAt ? start : subscription.cursorAt;
      // A delivery still failing when it was paused is given up here, while it is still paused
      // (no notifier touches it): retried after the resume, it moved the cursor back to the end
      // of its range, and the next message carried what happened while paused.
      const open = await this.#opts.store.openDelivery(subscription.id);
      if (open) {
        await this.#opts.store.finishDelivery(open.id, {
          status: 'abandoned',
          at,
          error: `not sent: the subscription was paused before it could be delivered (${open.lastError ?? 'interrupted'}); resumed from ${at} on`,
          cursorAt,
          lastPeriod: null,
          pauseReason: null,
        });
      }
      await this.#opts.store.updateSubscription(subscription.id, { status: 'active', pausedReason: null, cursorAt, lastPeriod: periodKey(subscription.cadence, now) }, at);
    }
    return this.#view((await this.#opts.store.getSubscription(subscription.id))!);
  }

  async delete(token: string): Promise<void> {
    const subscription = await this.#byToken(token, 'manage');
    await this.#opts.store.deleteSubscription(subscription.id);
  }

  /** RFC 8058 one-click: deletes it; false when the link opens nothing (already gone). */
  async unsubscribe(token: string): Promise<boolean> {
    if (!isWellFormedToken(token)) return false;
    const subscription = await this.#opts.store.subscriptionByToken(hashToken(token), 'manage', this.#now().toISOString());
    if (!subscription) return false;
    return this.#opts.store.deleteSubscription(subscription.id);
  }

  async deliveries(token: string, limit = 50): Promise<DeliveryView[]> {
    const subscription = await this.#byToken(token, 'manage');
    return (await this.#opts.store.deliveries(subscription.id, Math.min(Math.max(1, limit), 200))).map(toDeliveryView);
  }

  /** What a filter would have matched over the last `days` days of the published changes. */
  async previewMatches(filterInput: unknown, days = 30): Promise<PreviewResult> {
    const filter = parseFilter(filterInput === undefined ? {} : filterInput);
    if (!Number.isInteger(days) || days < 1 || days > 90) throw new PulseInputError('days', 'days: an integer from 1 to 90');
    const since = new Date(this.#now().getTime() - days * 86_400_000).toISOString();
    const all = this.#opts.changes ? await this.#opts.changes() : [];
    const matched = all.filter((c) => c.detected_at > since && changeMatches(filter, c));
    const byKind: Record<string, number> = {};
    for (const change of matched) byKind[change.kind] = (byKind[change.kind] ?? 0) + 1;
    const newest = [...matched].sort((a, b) => (a.detected_at < b.detected_at ? 1 : a.detected_at > b.detected_at ? -1 : a.change_id.localeCompare(b.change_id)));
    return { days, total: matched.length, by_kind: byKind, changes: newest.slice(0, 50) };
  }

  /**
   * Where a subscription starting now starts: after the newest change published, not at this
   * instant. A change's detected_at is the time its build began, minutes before it is published:
   * a cursor at "now" skipped every change of a build running while someone subscribed (or
   * confirmed, or resumed), published after. Builds run one after another, so every build not
   * yet published began after the newest published change. Now when nothing is published (or
   * it cannot be read).
   */
  async #startCursor(now: Date): Promise<string> {
    const at = now.toISOString();
    if (!this.#opts.changes) return at;
    let newest: string | null = null;
    try {
      for (const change of await this.#opts.changes()) if (newest === null || change.detected_at > newest) newest = change.detected_at;
    } catch {
      return at;
    }
    return newest !== null && newest < at ? newest : at;
  }

  async #byToken(token: string, purpose: 'manage' | 'confirm', message?: string): Promise<Subscription> {
    if (!isWellFormedToken(token)) throw new PulseNotFoundError(message);
    const subscription = await this.#opts.store.subscriptionByToken(hashToken(token), purpose, this.#now().toISOString());
    if (!subscription) throw new PulseNotFoundError(message);
    return subscription;
  }

  async #view(subscription: Subscription): Promise<SubscriptionView> {
    const deliveries = await this.#opts.store.deliveries(subscription.id, 20);
    return {
      channel: subscription.channel,
      address: subscription.address,
      cadence: subscription.cadence,
      filter: subscription.filter,
      status: subscription.status,
      paused_reason: subscription.pausedReason,
      created_at: subscription.createdAt,
      confirmed_at: subscription.confirmedAt,
      problem: problemOf(deliveries),
      deliveries: deliveries.map(toDeliveryView),
    };
  }

  /** Housekeeping at most hourly per process: expired confirmations and stale counters. */
  async #purgeNow(now: Date): Promise<void> {
    if (now.getTime() - this.#lastPurge < HOUR_MS) return;
    this.#lastPurge = now.getTime();
    await this.#opts.store.purgeExpired(new Date(now.getTime() - UNCONFIRMED_TTL_MS).toISOString(), now.toISOString());
    await this.#opts.store.pruneCounters(new Date(now.getTime() - 2 * HOUR_MS).toISOString());
  }

  async #ping(subscription: Subscription, now: Date): Promise<void> {
    const url = new URL(subscription.address);
    const timeoutMs = this.#opts.webhookTimeoutMs ?? 10_000;
    try {
      await checkWebhookUrl(url, this.#opts.allowPrivateWebhooks, timeoutMs);
    } catch (err) {
      if (err instanceof WebhookTargetError) throw new PulseInputError('url', `url: ${err.message}`);
      throw err;
    }
    const dispatcher = webhookDispatcher(this.#opts.allowPrivateWebhooks, timeoutMs);
    try {
      const body = JSON.stringify({
        type: 'ping',
        text: `vulnintel: this webhook is now subscribed to vulnerability changes (${subscription.cadence}).`,
        cadence: subscription.cadence,
        filter: subscription.filter,
      });
      const result = await postWebhook({
        url: subscription.address,
        secret: subscription.secret!,
        event: 'ping',
        deliveryId: `ping-${subscription.id}`,
        body,
        dispatcher,
        allowPrivate: this.#opts.allowPrivateWebhooks,
        timeoutMs,
        nowSeconds: Math.floor(now.getTime() / 1000),
      });
      if (!result.ok) throw new PulseInputError('url', `url: the webhook did not answer the ping with 2xx (${result.error})`);
    } finally {
      await dispatcher.close();
    }
  }

  async #sendConfirmation(subscription: Subscription, confirmToken: string, expiresAt: string): Promise<void> {
    const link = this.#opts.links.confirm(confirmToken);
    const what = `${subscription.cadence} alerts on vulnerability changes matching ${describeFilterUnquoted(subscription.filter)}`;
    await this.#opts.mailer!.send({
      to: subscription.address,
      subject: '[vulnintel] Confirm your subscription',
      text: [
        `Someone (hopefully you) asked to receive ${what} at this address.`,
        '',
        `To confirm, open: ${link}`,
        '',
        `The link works until ${minute(expiresAt)}. If you did not ask for this, ignore this message: nothing will be sent, and the request is deleted after 7 days.`,
      ].join('\n'),
      html: [
        '<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.4">',
        `<p>Someone (hopefully you) asked to receive ${escapeHtml(what)} at this address.</p>`,
        `<p><a href="${escapeHtml(link)}">Confirm the subscription</a></p>`,
        `<p style="color:#555">The link works until ${escapeHtml(minute(expiresAt))}. If you did not ask for this, ignore this message: nothing will be sent, and the request is deleted after 7 days.</p>`,
        '</body></html>',
      ].join('\n'),
    });
  }
}

/** The members of a filter whose value is free text the requester typed. */
const TYPED_MEMBERS: ReadonlySet<string> = new Set(['vendor', 'product', 'ecosystem', 'package', 'search']);

/**
 * A filter in words for the confirmation mail, which goes to an address that has not yet said it
 * wants mail: the free text a requester typed is named, never quoted (anyone may have the service
 * mail any address; its messages must not carry a stranger's words: "your account is suspended,
 * call …"). `vendor and search as typed in the request, min_severity HIGH`.
 */
export function describeFilterUnquoted(filter: Subscription['filter']): string {
  const set = Object.entries(filter).filter(([, v]) => v !== undefined);
  const typed = set.filter(([k]) => TYPED_MEMBERS.has(k)).map(([k]) => k);
  const rest = describeFilter(Object.fromEntries(set.filter(([k]) => !TYPED_MEMBERS.has(k))) as Subscription['filter']);
  if (typed.length === 0) return rest;
  const named = `${typed.length > 1 ? `${typed.slice(0, -1).join(', ')} and ${typed.at(-1)}` : typed[0]} as typed in the request (shown once you confirm)`;
  return rest === 'everything' ? named : `${named}, ${rest}`;
}

/**
 * A filter in words, for messages and pages: `vendor microsoft, min_severity HIGH`; `everything`
 * when empty. An empty list of kinds restricts nothing (changeMatches) and is not named: the mail
 * said "matching kinds  at this address".
 */
export function describeFilter(filter: Subscription['filter']): string {
  const parts = Object.entries(filter)
    .filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0))
    .map(([k, v]) => `${k} ${Array.isArray(v) ? v.join('/') : String(v)}`);
  return parts.length ? parts.join(', ') : 'everything';
}
