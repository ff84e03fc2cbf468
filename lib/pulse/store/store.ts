/**
 * The /pulse store (PULSE §6): subscriptions, their capability tokens (hashed), the delivery
 * ledger, the digest state (on the subscription) and the abuse counters. Two implementations
 * behind this one interface: SQLite through `node:sqlite` (one machine, the default) and
 * PostgreSQL (several hosts share it). test/pulse/store.test.ts runs the same suite on both.
 */
import type { Delivery, DeliveryOutcome, Subscription, SubscriptionPatch, TokenPurpose, TokenRecord } from '../types.ts';

/** A delivery about to be attempted: what identifies it and what it carries, and when (`at`). */
export type NewDelivery = Pick<Delivery, 'id' | 'subscriptionId' | 'periodKey' | 'rangeFrom' | 'rangeTo' | 'items'> & { at: string };

export interface PulseStore {
  readonly kind: 'sqlite' | 'postgres';
  /** The highest migration applied. */
  schemaVersion(): Promise<number>;

  /** Inserts a subscription with its first tokens, in one transaction. */
  insertSubscription(subscription: Subscription, tokens: TokenRecord[]): Promise<void>;
  getSubscription(id: string): Promise<Subscription | null>;
  /** The subscription a token of that purpose opens, unless the token expired at `now`. */
  subscriptionByToken(tokenHash: string, purpose: TokenPurpose, now: string): Promise<Subscription | null>;
  addToken(token: TokenRecord): Promise<void>;
  deleteToken(tokenHash: string): Promise<void>;
  /** False when no such subscription. */
  updateSubscription(id: string, patch: SubscriptionPatch, now: string): Promise<boolean>;
  /**
   * Patches an active subscription only while its cursor is still `cursorAt` (what the caller
   * read): a notifier holding an older read must not move the cursor back. False, and nothing
   * written, otherwise.
   */
  advanceSubscription(id: string, cursorAt: string, patch: SubscriptionPatch, now: string): Promise<boolean>;
  /**
   * Confirms a pending subscription: applies the patch and adds its manage token in one
   * transaction, only while it is still pending. False, and nothing written, when it is not
   * (confirmed already, by this call's twin on another connection too), or gone.
   */
  confirmSubscription(id: string, patch: SubscriptionPatch, manageToken: TokenRecord, now: string): Promise<boolean>;
  /** Deletes it with its tokens and ledger. False when no such subscription. */
  deleteSubscription(id: string): Promise<boolean>;
  /**
   * Confirmed subscriptions (active or paused) of an address: a pending one does not count, or
   * a stranger's unconfirmed requests would lock the address's owner out for their 7 days.
   */
  countSubscriptionsByAddress(addressKey: string): Promise<number>;
  /** Confirmed, not paused: the ones `notify` delivers to. */
  activeSubscriptions(): Promise<Subscription[]>;
  /** Housekeeping: deletes pending subscriptions created before `createdBefore` and tokens expired at `now`. */
  purgeExpired(createdBefore: string, now: string): Promise<number>;

  /** The subscription's unfinished delivery (`sending` or `failed`), if any. */
  openDelivery(subscriptionId: string): Promise<Delivery | null>;
  /**
   * Writes the ledger row before sending; null when that (subscription, period) already has one,
   * or when the subscription is no longer active with its cursor at `rangeFrom` (another notifier
   * delivered meanwhile, or it was paused or deleted).
   */
  beginDelivery(delivery: NewDelivery): Promise<Delivery | null>;
  /**
   * Marks a failed or interrupted row `sending` again and counts the attempt — only if it still
   * has `attempts` attempts (null otherwise: another notifier took this retry).
   */
  retryDelivery(id: string, attempts: number, at: string): Promise<Delivery | null>;
  /**
   * Records the outcome and moves the subscription on (cursor, digest period, pause) atomically;
   * the cursor only forward (a later one already there stays). Nothing, when the delivery is
   * gone (its subscription was deleted meanwhile).
   */
  finishDelivery(id: string, outcome: DeliveryOutcome): Promise<void>;
  /** Newest first. */
  deliveries(subscriptionId: string, limit: number): Promise<Delivery[]>;

  /** Adds one to a fixed-window counter and returns its new value. */
  hitCounter(key: string, windowStart: string): Promise<number>;
  /** Takes back one hit of that counter and window (never below zero): a request counted, then refused for its input. */
  unhitCounter(key: string, windowStart: string): Promise<void>;
  pruneCounters(windowStartBefore: string): Promise<void>;

  close(): Promise<void>;
}
