-- A Writing Room chat or a fan-out conversation closed for idleness opens again on its next turn, and is
-- billed per stretch: each reopening adds a session_start record and the next close its session_end,
-- both with the reopening turn's id as their occurrence ('' for the first stretch, as before). The
-- session's row keeps the occurrence of the stretch it is in, which its session_end is written with.
-- Only IF NOT EXISTS statements: a rebuild of the read side runs this again after V3.

ALTER TABLE sessions ADD COLUMN IF NOT EXISTS stretch TEXT NOT NULL DEFAULT '';
