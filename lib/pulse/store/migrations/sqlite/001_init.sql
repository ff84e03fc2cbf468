-- /pulse store, version 1 (SQLite): subscriptions, capability tokens (SHA-256 only), the
-- delivery ledger and the abuse counters. Timestamps are ISO 8601 UTC text (they sort as text).
CREATE TABLE subscriptions (
  id            TEXT PRIMARY KEY,
  channel       TEXT NOT NULL CHECK (channel IN ('email', 'webhook')),
  address       TEXT NOT NULL,
  address_key   TEXT NOT NULL,
  secret        TEXT,
  filter        TEXT NOT NULL,
  cadence       TEXT NOT NULL CHECK (cadence IN ('realtime', 'daily', 'weekly')),
  status        TEXT NOT NULL CHECK (status IN ('pending', 'active', 'paused')),
  paused_reason TEXT,
  created_at    TEXT NOT NULL,
  created_by    TEXT NOT NULL,
  confirmed_at  TEXT,
  cursor_at     TEXT NOT NULL,
  last_period   TEXT,
  updated_at    TEXT NOT NULL
);
CREATE INDEX subscriptions_by_address ON subscriptions (address_key);
CREATE INDEX subscriptions_by_status ON subscriptions (status, created_at);

CREATE TABLE tokens (
  token_hash      TEXT PRIMARY KEY,
  subscription_id TEXT NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
  purpose         TEXT NOT NULL CHECK (purpose IN ('manage', 'confirm')),
  created_at      TEXT NOT NULL,
  expires_at      TEXT
);
CREATE INDEX tokens_by_subscription ON tokens (subscription_id);

CREATE TABLE deliveries (
  id               TEXT PRIMARY KEY,
  subscription_id  TEXT NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
  period_key       TEXT NOT NULL,
  range_from       TEXT NOT NULL,
  range_to         TEXT NOT NULL,
  items            INTEGER NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('sending', 'sent', 'failed', 'abandoned')),
  attempts         INTEGER NOT NULL,
  first_attempt_at TEXT NOT NULL,
  last_attempt_at  TEXT NOT NULL,
  next_attempt_at  TEXT,
  sent_at          TEXT,
  last_error       TEXT,
  UNIQUE (subscription_id, period_key)
);
CREATE INDEX deliveries_by_subscription ON deliveries (subscription_id, first_attempt_at);

CREATE TABLE counters (
  key          TEXT NOT NULL,
  window_start TEXT NOT NULL,
  count        INTEGER NOT NULL,
  PRIMARY KEY (key, window_start)
);
