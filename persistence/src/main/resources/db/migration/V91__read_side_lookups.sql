-- Lookups that ran on every turn or every new session and read more than they needed, so their cost
-- grew with the data rather than staying per turn (bench/RESULTS.md, 2026-12-05).
-- Only IF NOT EXISTS statements: a rebuild of the read side runs this again.

-- The projection updates a turn's messages by their turn (its answers' turn number, their intent,
-- confidence and escalation flag). The indexes that lead with the session do not hold the turn, so each
-- of those statements read every message of the session: after five minutes of 100 streams (sessions of
-- several hundred turns) the database spent 6.8 ms of CPU per turn, 1.9 ms with this index, and the
-- projection fell behind.
CREATE INDEX IF NOT EXISTS messages_by_turn ON messages (session_id, turn_id);

-- Every new session counts its tenant's open sessions (the tenant's quota). The indexes there were hold
-- either all of the tenant's sessions or the open sessions of every tenant, so the count read one of
-- those; this one holds only the tenant's open ones.
CREATE INDEX IF NOT EXISTS open_sessions_by_tenant ON sessions (tenant_id) WHERE status = 'open';
