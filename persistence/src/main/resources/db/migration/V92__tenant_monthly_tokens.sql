-- A tenant's tokens of each month (UTC), kept as a running total by the projection as turns end, so that
-- the monthly token budget, asked on every turn of a tenant that has one, reads a handful of rows
-- instead of summing every session the tenant was active in that month (bench/RESULTS.md, 2026-12-05).
-- A turn's tokens count in the month the turn ended.
--
-- One row per projection slice (the session's tag): the projection's instances run side by side, and
-- rows of their own keep them from waiting on each other's locks when one tenant's turns end at once.
-- The budget reads the sum of the slices.
--
-- Only IF NOT EXISTS statements: a rebuild of the read side runs this again. What the projection wrote
-- before this table existed is added once, by V93.
CREATE TABLE IF NOT EXISTS tenant_monthly_tokens (
    tenant_id TEXT NOT NULL,
    month DATE NOT NULL,
    slice TEXT NOT NULL,
    tokens BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, month, slice)
);
