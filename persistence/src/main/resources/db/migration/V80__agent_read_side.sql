-- What the agent decided, in the read tables (seed 004's messages and sessions tables): each message's
-- intent (conversational, domain_query, out_of_scope), the retrieval confidence and the chunks an
-- answer rests on (both null for a turn that did not retrieve), whether the turn escalated; a
-- session's status becomes 'escalated' while a human has it, with the reason and when. Only IF NOT
-- EXISTS statements: a rebuild of the read side runs this again.

ALTER TABLE messages ADD COLUMN IF NOT EXISTS intent_type TEXT;
ALTER TABLE messages ADD COLUMN IF NOT EXISTS confidence_score DOUBLE PRECISION;
ALTER TABLE messages ADD COLUMN IF NOT EXISTS source_chunks JSONB;
ALTER TABLE messages ADD COLUMN IF NOT EXISTS escalation_flag BOOLEAN NOT NULL DEFAULT false;

ALTER TABLE sessions ADD COLUMN IF NOT EXISTS escalation_reason TEXT;
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS escalated_at TIMESTAMPTZ;
