-- The character a Writing Room chat talks to (null for every other session), and the list of one
-- user's chats that GET /chats reads, most recently active first. Only IF NOT EXISTS statements: a
-- rebuild of the read side runs this again after V3 and V5.

ALTER TABLE sessions ADD COLUMN IF NOT EXISTS character_id TEXT;

CREATE INDEX IF NOT EXISTS user_chats_by_activity ON sessions (tenant_id, user_id, last_activity_at DESC, session_id DESC)
  WHERE character_id IS NOT NULL;
