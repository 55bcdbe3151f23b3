-- A session keeps only its newest turns in memory; the pages of its history before them come from
-- here, so a message needs its place: the number of its turn in the session (1, 2, 3 ... as the
-- session counts its accepted turns) and its index in the turn (0 the user's message, 1, 2 ... the
-- answers in run order), and what the session shows of an answer: its run and citations.
-- Rows written before have their place filled in from their times; a rebuild of the read side runs
-- this again on empty tables, where the updates change nothing.

ALTER TABLE messages ADD COLUMN IF NOT EXISTS turn_ordinal INTEGER;
ALTER TABLE messages ADD COLUMN IF NOT EXISTS answer_index INTEGER;
ALTER TABLE messages ADD COLUMN IF NOT EXISTS run_id TEXT;
ALTER TABLE messages ADD COLUMN IF NOT EXISTS citations JSONB;

UPDATE messages m SET turn_ordinal = numbered.ordinal, answer_index = 0
FROM (SELECT message_id, row_number() OVER (PARTITION BY session_id ORDER BY created_at, message_id) AS ordinal
      FROM messages WHERE role = 'user') numbered
WHERE m.message_id = numbered.message_id AND m.turn_ordinal IS NULL;

UPDATE messages a SET turn_ordinal = u.turn_ordinal, answer_index = 1
FROM messages u
WHERE a.role = 'assistant' AND a.turn_ordinal IS NULL
  AND u.role = 'user' AND u.session_id = a.session_id AND u.turn_id = a.turn_id;

CREATE INDEX IF NOT EXISTS messages_by_position ON messages (session_id, turn_ordinal, answer_index);
