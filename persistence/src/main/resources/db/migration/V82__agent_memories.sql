-- Long-term memory of a tenant's users (seed 002): facts with the embedding of their text, and what the
-- tenant tells the agent about each user. Not read tables: they are written directly (by a turn's
-- memory extraction, or through the API), and a user's DELETE erases them for good.
-- content_key is the fact's text normalised (lower case, single spaces), so that a user never has the
-- same fact twice. Embeddings are plain arrays compared in the JVM: a user has a few hundred facts at most.

CREATE TABLE IF NOT EXISTS agent_memories (
  memory_id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  content TEXT NOT NULL,
  content_key TEXT NOT NULL,
  embedding REAL[] NOT NULL,
  source TEXT NOT NULL,
  session_id TEXT,
  created_at TIMESTAMPTZ NOT NULL,
  UNIQUE (tenant_id, user_id, content_key)
);

CREATE INDEX IF NOT EXISTS agent_memories_by_user ON agent_memories (tenant_id, user_id, created_at DESC);

CREATE TABLE IF NOT EXISTS user_context (
  tenant_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  plan TEXT,
  usage JSONB,
  preferences JSONB,
  updated_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (tenant_id, user_id)
);
