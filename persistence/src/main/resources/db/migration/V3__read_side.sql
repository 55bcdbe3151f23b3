-- The read side: offset and management tables of pekko-projection-jdbc 1.0.0 (lower-case names, as
-- pekko.projection.jdbc.offset-store.use-lowercase-schema expects), then the read tables the
-- session projection keeps. The read tables are defined once, in db/read-side/tables.sql, which
-- ReadSide also runs to recreate them when they were dropped; this migration repeats it verbatim
-- (ReadSideSchemaTest checks that the two agree).

CREATE TABLE IF NOT EXISTS pekko_projection_offset_store (
  projection_name VARCHAR(255) NOT NULL,
  projection_key VARCHAR(255) NOT NULL,
  current_offset VARCHAR(255) NOT NULL,
  manifest VARCHAR(32) NOT NULL,
  mergeable BOOLEAN NOT NULL,
  last_updated BIGINT NOT NULL,
  PRIMARY KEY (projection_name, projection_key)
);

CREATE INDEX IF NOT EXISTS projection_name_index ON pekko_projection_offset_store (projection_name);

CREATE TABLE IF NOT EXISTS pekko_projection_management (
  projection_name VARCHAR(255) NOT NULL,
  projection_key VARCHAR(255) NOT NULL,
  paused BOOLEAN NOT NULL,
  last_updated BIGINT NOT NULL,
  PRIMARY KEY (projection_name, projection_key)
);

-- One row per session, for listing: status is open, closed or deleted; last_activity_at is when a
-- turn last began or ended (or the session opened); token totals are over every run of every turn.
CREATE TABLE IF NOT EXISTS sessions (
  session_id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  status TEXT NOT NULL,
  title TEXT,
  created_at TIMESTAMPTZ NOT NULL,
  last_activity_at TIMESTAMPTZ NOT NULL,
  closed_at TIMESTAMPTZ,
  close_reason TEXT,
  turn_count INTEGER NOT NULL DEFAULT 0,
  prompt_tokens BIGINT NOT NULL DEFAULT 0,
  completion_tokens BIGINT NOT NULL DEFAULT 0,
  cost_usd DOUBLE PRECISION NOT NULL DEFAULT 0
);

CREATE INDEX IF NOT EXISTS sessions_by_activity ON sessions (tenant_id, last_activity_at DESC, session_id DESC);

CREATE INDEX IF NOT EXISTS open_sessions_by_activity ON sessions (last_activity_at) WHERE status = 'open';

-- Token totals of a session per provider and model.
CREATE TABLE IF NOT EXISTS session_usage (
  session_id TEXT NOT NULL,
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  prompt_tokens BIGINT NOT NULL,
  completion_tokens BIGINT NOT NULL,
  cost_usd DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (session_id, provider, model)
);

-- Every user message and every completed assistant answer; provider and model only for answers.
CREATE TABLE IF NOT EXISTS messages (
  message_id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  turn_id TEXT NOT NULL,
  role TEXT NOT NULL,
  content TEXT NOT NULL,
  provider TEXT,
  model TEXT,
  created_at TIMESTAMPTZ NOT NULL
);

CREATE INDEX IF NOT EXISTS messages_by_session ON messages (session_id, created_at);

-- Billing-grade records: one session_start and at most one session_end per session. A session_end
-- carries why it closed and its totals; usage_by_model is {"provider/model": {prompt_tokens,
-- completion_tokens, cost_usd}}.
CREATE TABLE IF NOT EXISTS billing_events (
  session_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  tenant_id TEXT NOT NULL,
  occurred_at TIMESTAMPTZ NOT NULL,
  reason TEXT,
  turns INTEGER,
  completed_turns INTEGER,
  prompt_tokens BIGINT,
  completion_tokens BIGINT,
  cost_usd DOUBLE PRECISION,
  duration_ms BIGINT,
  usage_by_model JSONB,
  PRIMARY KEY (session_id, kind)
);
