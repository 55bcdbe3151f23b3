-- Messages are ordered by their place in the session (turn_ordinal, answer_index: V88's
-- messages_by_position), not by their times: the clocks of the nodes a session ran on need not agree,
-- and one turn's answers share a time. The last reader by time, the escalation webhook's transcript,
-- now reads by place, so the index by time only cost a write with every message (two a turn).
-- A rebuild of the read side runs this again after V3, which creates the index anew.
DROP INDEX IF EXISTS messages_by_session;
