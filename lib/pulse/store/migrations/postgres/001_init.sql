-- /pulse store, version 1 (PostgreSQL): subscriptions, capability tokens (SHA-256 only), the
-- delivery ledger and the abuse counters. Timestamps are timestamptz.
CREATE TABLE subscriptions (
  id            TEXT PRIMARY KEY,
  channel       TEXT NOT NULL CHECK (channel IN ('email', 'webhook')),
  address       TEXT NOT NULL,
  address_key   TEXT NOT NULL,
  secret        TEXT,
  filter        JSONB NOT NULL,
  cadence       TEXT NOT NULL CHECK (cadence IN ('realtime', 'daily', 'weekly')),
  status        TEXT NOT NULL CHECK (status IN ('pending', 'active', 'paused')),
  paused_reason TEXT,
  created_at    TIMESTAMPTZ NOT NULL,
  created_by    TEXT NOT NULL,
  confirmed_at  TIMESTAMPTZ,
  cursor_at     TIMESTAMPTZ NOT NULL,
  last_period   TEXT,
  updated_at    TIMESTAMPTZ NOT NULL
);
CREATE INDEX subscriptions_by_address ON subscriptions (address_key);
CREATE INDEX subscriptions_by_status ON subscriptions (status, created_at);

CREATE TABLE tokens (
  token_hash      TEXT PRIMARY KEY,
  subscription_id TEXT NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
  purpose         TEXT NOT NULL CHECK (purpose IN ('manage', 'confirm')),
  created_at      TIMESTAMPTZ NOT NULL,
  expires_at      TIMESTAMPTZ
);
CREATE INDEX tokens_by_subscription ON tokens (subscription_id);

CREATE TABLE deliveries (
  id               TEXT PRIMARY KEY,
  subscription_id  TEXT NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
  period_key       TEXT NOT NULL,
  range_from       TIMESTAMPTZ NOT NULL,
  range_to         TIMESTAMPTZ NOT NULL,
  items            INTEGER NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('sending', 'sent', 'failed', 'abandoned')),
  attempts         INTEGER NOT NULL,
  first_attempt_at TIMESTAMPTZ NOT NULL,
  last_attempt_at  TIMESTAMPTZ NOT NULL,
  next_attempt_at  TIMESTAMPTZ,
  sent_at          TIMESTAMPTZ,
  last_error       TEXT,
  UNIQUE (subscription_id, period_key)
);
CREATE INDEX deliveries_by_subscription ON deliveries (subscription_id, first_attempt_at);

CREATE TABLE counters (
  key          TEXT NOT NULL,
  window_start TIMESTAMPTZ NOT NULL,
  count        INTEGER NOT NULL,
  PRIMARY KEY (key, window_start)
);
