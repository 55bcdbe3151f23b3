-- The user a session belongs to within its tenant; null for a session of the whole tenant (opened by
-- a tenant key without a user, or before sessions had users). The session list of a user reads the
-- second index. Only IF NOT EXISTS statements: a rebuild of the read side runs this again after V3.

ALTER TABLE sessions ADD COLUMN IF NOT EXISTS user_id TEXT;

CREATE INDEX IF NOT EXISTS user_sessions_by_activity ON sessions (tenant_id, user_id, last_activity_at DESC, session_id DESC);
