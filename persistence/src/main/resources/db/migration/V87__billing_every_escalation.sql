-- A session may be billed for several records of one kind: every escalation (an operator hands the
-- session back, a later turn escalates it again) and every escalation webhook given up. occurrence
-- tells them apart: the escalating turn's id, the failed webhook's id; it is '' for session_start and
-- session_end, of which a session has one each. The key (session_id, kind) of V3 becomes
-- (session_id, kind, occurrence), so a projection that sees an event again still adds nothing twice.
-- Only IF NOT EXISTS / IF EXISTS statements: a rebuild of the read side runs this again after V3.

ALTER TABLE billing_events ADD COLUMN IF NOT EXISTS occurrence TEXT NOT NULL DEFAULT '';

ALTER TABLE billing_events DROP CONSTRAINT IF EXISTS billing_events_pkey;

CREATE UNIQUE INDEX IF NOT EXISTS billing_events_by_occurrence ON billing_events (session_id, kind, occurrence);
