-- A tenant's open sessions, kept as a running count by the projection as its sessions open, close, open
-- again, are escalated and handed back, and are deleted, so that the quota on open sessions, asked on
-- every new session, reads a handful of rows instead of counting the tenant's open sessions, a count that
-- grew with them (bench/RESULTS.md, 2026-12-07). It counts the rows of `sessions` whose status is 'open'.
--
-- One row per projection slice (the session's tag), as in tenant_monthly_tokens and for the same reason:
-- the projection's instances run side by side, and rows of their own keep them from waiting on each
-- other's locks. The quota reads the sum of the slices. A slice's count may be below zero (a session
-- counted by V96 that closes later); the sum is what counts.
--
-- Only IF NOT EXISTS statements: a rebuild of the read side runs this again. The sessions open before
-- this table existed are counted once, by V96.
CREATE TABLE IF NOT EXISTS tenant_open_sessions (
    tenant_id TEXT NOT NULL,
    slice TEXT NOT NULL,
    open_sessions BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, slice)
);
