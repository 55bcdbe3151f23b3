-- The session of each turn that the fan-out dialect started: its stream's URL names only the turn
-- (GET /v1/turns/{turn_id}/stream). A row is written before the turn's id is given to the client, so
-- the stream request that follows always finds it, on any node; every lookup is scoped by tenant.
-- Not a read table: nothing in the journal says which dialect started a turn, so a rebuild of the read
-- side leaves it alone.
CREATE TABLE IF NOT EXISTS turn_sessions (
  turn_id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  tenant_id TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
