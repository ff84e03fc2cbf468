/**
 * The records of /pulse subscriptions and deliveries (PULSE §4–§6), as every store
 * implementation returns them. Timestamps are ISO 8601 strings in UTC.
 */
import type { ChangeFilter } from '../changes/model.ts';

export const CHANNELS = ['email', 'webhook'] as const;
export type Channel = (typeof CHANNELS)[number];

export const CADENCES = ['realtime', 'daily', 'weekly'] as const;
export type Cadence = (typeof CADENCES)[number];

/** pending: an e-mail subscription not confirmed yet; paused: by its owner or by a 410 webhook. */
export type SubscriptionStatus = 'pending' | 'active' | 'paused';

export interface Subscription {
  id: string;
  channel: Channel;
  /** The e-mail address or the webhook URL. */
  address: string;
  /** Per-address limits count by this: the lower-case e-mail address, or the webhook's host. */
  addressKey: string;
  /** Webhook signing secret (kept in clear: the notifier signs with it). Null for e-mail. */
  secret: string | null;
  filter: ChangeFilter;
  cadence: Cadence;
  status: SubscriptionStatus;
  pausedReason: string | null;
  createdAt: string;
  /** The caller key of the creator (abuse limits and audit). */
  createdBy: string;
  confirmedAt: string | null;
  /** Changes detected after this instant are not yet processed for this subscription. */
  cursorAt: string;
  /** Digests: the period key (e.g. `daily:2026-11-24`) last processed. */
  lastPeriod: string | null;
  updatedAt: string;
}

export type TokenPurpose = 'manage' | 'confirm';

/** A capability token, stored by its SHA-256 only. */
export interface TokenRecord {
  tokenHash: string;
  subscriptionId: string;
  purpose: TokenPurpose;
  createdAt: string;
  /** Null: valid while the subscription exists. */
  expiresAt: string | null;
}

/**
 * sending: written before the attempt (a row still `sending` at the next run was interrupted
 * and is retried); failed: waits for `nextAttemptAt`; abandoned: gave up (after 24 h, or 410).
 */
export type DeliveryStatus = 'sending' | 'sent' | 'failed' | 'abandoned';

export interface Delivery {
  id: string;
  subscriptionId: string;
  /** `build:<build_id>` (realtime) or `daily:YYYY-MM-DD` / `weekly:YYYY-Www` (digests). */
  periodKey: string;
  /** The changes this message carries: detected after rangeFrom, up to rangeTo inclusive. */
  rangeFrom: string;
  rangeTo: string;
  items: number;
  status: DeliveryStatus;
  attempts: number;
  firstAttemptAt: string;
  lastAttemptAt: string;
  nextAttemptAt: string | null;
  sentAt: string | null;
  lastError: string | null;
}

export type SubscriptionPatch = Partial<Pick<Subscription, 'filter' | 'cadence' | 'status' | 'pausedReason' | 'confirmedAt' | 'cursorAt' | 'lastPeriod'>>;

/** How a delivery attempt ended; the subscription is updated in the same transaction. */
export type DeliveryOutcome =
  | { status: 'sent'; at: string; cursorAt: string; lastPeriod: string | null }
  | { status: 'failed'; at: string; error: string; nextAttemptAt: string }
  | { status: 'abandoned'; at: string; error: string; cursorAt: string; lastPeriod: string | null; pauseReason: string | null };
