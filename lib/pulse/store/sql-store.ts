/**
 * The store itself (PULSE §6), written once in the SQL both SQLite and PostgreSQL accept
 * (`ON CONFLICT`, `RETURNING`); the drivers differ only in how they connect and convert values.
 */
import type { ChangeFilter } from '../../changes/model.ts';
import type { Cadence, Channel, Delivery, DeliveryOutcome, DeliveryStatus, Subscription, SubscriptionPatch, SubscriptionStatus, TokenPurpose, TokenRecord } from '../types.ts';
import type { Queryable, Row, SqlDriver, SqlValue } from './driver.ts';
import { loadMigrations } from './migrations.ts';
import type { NewDelivery, PulseStore } from './store.ts';

const SUBSCRIPTION_COLUMNS =
  's.id, s.channel, s.address, s.address_key, s.secret, s.filter, s.cadence, s.status, s.paused_reason, s.created_at, s.created_by, s.confirmed_at, s.cursor_at, s.last_period, s.updated_at';

const PATCH_COLUMNS: Record<keyof SubscriptionPatch, string> = {
  filter: 'filter',
  cadence: 'cadence',
  status: 'status',
  pausedReason: 'paused_reason',
  confirmedAt: 'confirmed_at',
  cursorAt: 'cursor_at',
  lastPeriod: 'last_period',
};

const text = (value: unknown): string => String(value);
const optionalText = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

function toSubscription(row: Row): Subscription {
  return {
    id: text(row.id),
    channel: text(row.channel) as Channel,
    address: text(row.address),
    addressKey: text(row.address_key),
    secret: optionalText(row.secret),
    filter: JSON.parse(text(row.filter)) as ChangeFilter,
    cadence: text(row.cadence) as Cadence,
    status: text(row.status) as SubscriptionStatus,
    pausedReason: optionalText(row.paused_reason),
    createdAt: text(row.created_at),
    createdBy: text(row.created_by),
    confirmedAt: optionalText(row.confirmed_at),
    cursorAt: text(row.cursor_at),
    lastPeriod: optionalText(row.last_period),
    updatedAt: text(row.updated_at),
  };
}

function toDelivery(row: Row): Delivery {
  return {
    id: text(row.id),
    subscriptionId: text(row.subscription_id),
    periodKey: text(row.period_key),
    rangeFrom: text(row.range_from),
    rangeTo: text(row.range_to),
    items: Number(row.items),
    status: text(row.status) as DeliveryStatus,
    attempts: Number(row.attempts),
    firstAttemptAt: text(row.first_attempt_at),
    lastAttemptAt: text(row.last_attempt_at),
    nextAttemptAt: optionalText(row.next_attempt_at),
    sentAt: optionalText(row.sent_at),
    lastError: optionalText(row.last_error),
  };
}

async function insertToken(db: Queryable, token: TokenRecord): Promise<void> {
  await db.query('INSERT INTO tokens (token_hash, subscription_id, purpose, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)', [
    token.tokenHash,
    token.subscriptionId,
    token.purpose,
    token.createdAt,
    token.expiresAt,
  ]);
}

export class SqlPulseStore implements PulseStore {
  readonly #db: SqlDriver;

  private constructor(db: SqlDriver) {
    this.#db = db;
  }

  /** Opens the store and applies the migrations it lacks. */
  static async open(db: SqlDriver): Promise<SqlPulseStore> {
    try {
      await db.migrate(loadMigrations(db.kind));
    } catch (err) {
      await db.close().catch(() => {});
      throw err;
    }
    return new SqlPulseStore(db);
  }

  get kind(): 'sqlite' | 'postgres' {
    return this.#db.kind;
  }

  async schemaVersion(): Promise<number> {
    const [row] = await this.#db.query('SELECT COALESCE(MAX(version), 0) AS v FROM pulse_migrations');
    return Number(row?.v ?? 0);
  }

  async insertSubscription(s: Subscription, tokens: TokenRecord[]): Promise<void> {
    await this.#db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO subscriptions (id, channel, address, address_key, secret, filter, cadence, status, paused_reason, created_at, created_by, confirmed_at, cursor_at, last_period, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
        [s.id, s.channel, s.address, s.addressKey, s.secret, JSON.stringify(s.filter), s.cadence, s.status, s.pausedReason, s.createdAt, s.createdBy, s.confirmedAt, s.cursorAt, s.lastPeriod, s.updatedAt],
      );
      for (const token of tokens) await insertToken(tx, token);
    });
  }

  async getSubscription(id: string): Promise<Subscription | null> {
    const [row] = await this.#db.query(`SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s WHERE s.id = $1`, [id]);
    return row ? toSubscription(row) : null;
  }

  async subscriptionByToken(tokenHash: string, purpose: TokenPurpose, now: string): Promise<Subscription | null> {
    const [row] = await this.#db.query(
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM tokens t JOIN subscriptions s ON s.id = t.subscription_id
       WHERE t.token_hash = $1 AND t.purpose = $2 AND (t.expires_at IS NULL OR t.expires_at > $3)`,
      [tokenHash, purpose, now],
    );
    return row ? toSubscription(row) : null;
  }

  async addToken(token: TokenRecord): Promise<void> {
    await insertToken(this.#db, token);
  }

  async deleteToken(tokenHash: string): Promise<void> {
    await this.#db.query('DELETE FROM tokens WHERE token_hash = $1', [tokenHash]);
  }

  async updateSubscription(id: string, patch: SubscriptionPatch, now: string): Promise<boolean> {
    return updateSubscription(this.#db, id, patch, now);
  }

  async advanceSubscription(id: string, cursorAt: string, patch: SubscriptionPatch, now: string): Promise<boolean> {
    return updateSubscription(this.#db, id, patch, now, { onlyIf: 'active', onlyAtCursor: cursorAt });
  }

  async confirmSubscription(id: string, patch: SubscriptionPatch, manageToken: TokenRecord, now: string): Promise<boolean> {
    return this.#db.transaction(async (tx) => {
      // The status test is in the UPDATE itself: PostgreSQL re-reads it after waiting for a
      // concurrent confirmation's row lock, SQLite serialises the transactions; one wins.
      if (!(await updateSubscription(tx, id, patch, now, { onlyIf: 'pending' }))) return false;
      await insertToken(tx, manageToken);
      return true;
    });
  }

  async deleteSubscription(id: string): Promise<boolean> {
    // Tokens and ledger rows go with it (ON DELETE CASCADE).
    const rows = await this.#db.query('DELETE FROM subscriptions WHERE id = $1 RETURNING id', [id]);
    return rows.length > 0;
  }

  async countSubscriptionsByAddress(addressKey: string): Promise<number> {
    const [row] = await this.#db.query("SELECT COUNT(*) AS n FROM subscriptions WHERE address_key = $1 AND status <> 'pending'", [addressKey]);
    return Number(row?.n ?? 0);
  }

  async activeSubscriptions(): Promise<Subscription[]> {
    const rows = await this.#db.query(`SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s WHERE s.status = 'active' ORDER BY s.created_at, s.id`);
    return rows.map(toSubscription);
  }

  async purgeExpired(createdBefore: string, now: string): Promise<number> {
    return this.#db.transaction(async (tx) => {
      const gone = await tx.query(`DELETE FROM subscriptions WHERE status = 'pending' AND created_at < $1 RETURNING id`, [createdBefore]);
      await tx.query('DELETE FROM tokens WHERE expires_at IS NOT NULL AND expires_at <= $1', [now]);
      return gone.length;
    });
  }

  async openDelivery(subscriptionId: string): Promise<Delivery | null> {
    const [row] = await this.#db.query(
      `SELECT * FROM deliveries WHERE subscription_id = $1 AND status IN ('sending', 'failed') ORDER BY first_attempt_at, id LIMIT 1`,
      [subscriptionId],
    );
    return row ? toDelivery(row) : null;
  }

  async beginDelivery(d: NewDelivery): Promise<Delivery | null> {
    // Written only while the subscription is active and its cursor is still where the range
    // starts: a run holding an older read of it (another run delivered meanwhile, or it was
    // paused or deleted) writes nothing, instead of sending that range again.
    const [row] = await this.#db.query(
      `INSERT INTO deliveries (id, subscription_id, period_key, range_from, range_to, items, status, attempts, first_attempt_at, last_attempt_at)
       SELECT $1, s.id, $3, $4, $5, $6, 'sending', 1, $7, $7 FROM subscriptions s
       WHERE s.id = $2 AND s.status = 'active' AND s.cursor_at = $4
       ON CONFLICT (subscription_id, period_key) DO NOTHING RETURNING *`,
      [d.id, d.subscriptionId, d.periodKey, d.rangeFrom, d.rangeTo, d.items, d.at],
    );
    return row ? toDelivery(row) : null;
  }

  async retryDelivery(id: string, attempts: number, at: string): Promise<Delivery | null> {
    const [row] = await this.#db.query(
      `UPDATE deliveries SET status = 'sending', attempts = attempts + 1, last_attempt_at = $3, next_attempt_at = NULL
       WHERE id = $1 AND attempts = $2 AND status IN ('sending', 'failed') RETURNING *`,
      [id, attempts, at],
    );
    return row ? toDelivery(row) : null;
  }

  async finishDelivery(id: string, outcome: DeliveryOutcome): Promise<void> {
    await this.#db.transaction(async (tx) => {
      const [row] = await tx.query(
        `UPDATE deliveries SET status = $2, sent_at = $3, next_attempt_at = $4, last_error = $5 WHERE id = $1 RETURNING subscription_id`,
        [
          id,
          outcome.status,
          outcome.status === 'sent' ? outcome.at : null,
          outcome.status === 'failed' ? outcome.nextAttemptAt : null,
          outcome.status === 'sent' ? null : outcome.error,
        ],
      );
      // Gone with its subscription (deleted, one-click unsubscribe included, while the message
      // was in flight): nothing left to record. It threw, and notify counted a message it had
      // delivered as failed.
      if (!row) return;
      if (outcome.status === 'failed') return;
      const patch: SubscriptionPatch = { cursorAt: outcome.cursorAt };
      if (outcome.lastPeriod !== null) patch.lastPeriod = outcome.lastPeriod;
      if (outcome.status === 'abandoned' && outcome.pauseReason !== null) Object.assign(patch, { status: 'paused', pausedReason: outcome.pauseReason });
      // Never back: the subscription may have gone on meanwhile (resumed from a later instant).
      await updateSubscription(tx, text(row.subscription_id), patch, outcome.at, { cursorForwardOnly: true });
    });
  }

  async deliveries(subscriptionId: string, limit: number): Promise<Delivery[]> {
    const rows = await this.#db.query(`SELECT * FROM deliveries WHERE subscription_id = $1 ORDER BY first_attempt_at DESC, id DESC LIMIT $2`, [subscriptionId, limit]);
    return rows.map(toDelivery);
  }

  async hitCounter(key: string, windowStart: string): Promise<number> {
    const [row] = await this.#db.query(
      `INSERT INTO counters (key, window_start, count) VALUES ($1, $2, 1)
       ON CONFLICT (key, window_start) DO UPDATE SET count = counters.count + 1 RETURNING count`,
      [key, windowStart],
    );
    return Number(row?.count ?? 0);
  }

  async unhitCounter(key: string, windowStart: string): Promise<void> {
    await this.#db.query('UPDATE counters SET count = count - 1 WHERE key = $1 AND window_start = $2 AND count > 0', [key, windowStart]);
  }

  async pruneCounters(windowStartBefore: string): Promise<void> {
    await this.#db.query('DELETE FROM counters WHERE window_start < $1', [windowStartBefore]);
  }

  close(): Promise<void> {
    return this.#db.close();
  }
}

/** Conditions and rules of updateSubscription. */
interface UpdateRules {
  /** Only while it has this status. */
  onlyIf?: SubscriptionStatus;
  /** Only while its cursor is this. */
  onlyAtCursor?: string;
  /** The cursor moves forward only (a later cursor already there stays). */
  cursorForwardOnly?: boolean;
}

/** Patches a subscription under `rules`; false when no row was changed. */
async function updateSubscription(db: Queryable, id: string, patch: SubscriptionPatch, now: string, rules: UpdateRules = {}): Promise<boolean> {
  const sets: string[] = [];
  const params: SqlValue[] = [id];
  for (const [member, column] of Object.entries(PATCH_COLUMNS) as [keyof SubscriptionPatch, string][]) {
    if (!(member in patch)) continue;
    const value = patch[member];
    params.push(member === 'filter' ? JSON.stringify(value) : ((value ?? null) as SqlValue));
    const param = `$${params.length}`;
    sets.push(member === 'cursorAt' && rules.cursorForwardOnly ? `${column} = CASE WHEN ${column} > ${param} THEN ${column} ELSE ${param} END` : `${column} = ${param}`);
  }
  params.push(now);
  sets.push(`updated_at = $${params.length}`);
  let where = 'id = $1';
  if (rules.onlyIf !== undefined) {
    params.push(rules.onlyIf);
    where += ` AND status = $${params.length}`;
  }
  if (rules.onlyAtCursor !== undefined) {
    params.push(rules.onlyAtCursor);
    where += ` AND cursor_at = $${params.length}`;
  }
  const rows = await db.query(`UPDATE subscriptions SET ${sets.join(', ')} WHERE ${where} RETURNING id`, params);
  return rows.length > 0;
}
