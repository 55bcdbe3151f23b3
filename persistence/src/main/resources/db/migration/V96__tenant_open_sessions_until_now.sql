-- Fills V95's running counts with the sessions open before they existed, once, on upgrade (a rebuild of
-- the read side does not run this: the projection counts again from the journal).
INSERT INTO tenant_open_sessions (tenant_id, slice, open_sessions)
SELECT tenant_id, 'before-v95', count(*)
FROM sessions
WHERE status = 'open'
GROUP BY tenant_id
ON CONFLICT (tenant_id, slice) DO NOTHING;
