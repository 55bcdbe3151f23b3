-- The outbox of the escalation webhooks: the session projection adds a row in the same transaction
-- as the event it comes from (its webhook_id is derived from that event, so a replayed or rebuilt
-- projection adds nothing twice); each node's dispatcher leases due rows, posts them and records the
-- outcome. payload is the exact body, kept as text so that every retry signs and sends the same
-- bytes. status: pending, delivered, or failed once the retries are spent (or no webhook URL is set).
-- A rebuild of the read side keeps this table: what was delivered must not be sent again.

CREATE TABLE IF NOT EXISTS webhook_outbox (
  webhook_id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TIMESTAMPTZ NOT NULL,
  locked_until TIMESTAMPTZ,
  last_error TEXT,
  created_at TIMESTAMPTZ NOT NULL,
  delivered_at TIMESTAMPTZ
);

CREATE INDEX IF NOT EXISTS webhook_outbox_due ON webhook_outbox (next_attempt_at) WHERE status = 'pending';
