-- Fills V92's running totals with the tokens projected before they existed, once, on upgrade (a rebuild
-- of the read side does not run this: the projection refills the totals from the journal). Those
-- sessions kept only their sums, so each session's tokens count in the month of its last activity, as
-- the budget counted them until now.
INSERT INTO tenant_monthly_tokens (tenant_id, month, slice, tokens)
SELECT tenant_id, CAST(date_trunc('month', last_activity_at AT TIME ZONE 'UTC') AS DATE), 'before-v92',
       sum(prompt_tokens + completion_tokens)
FROM sessions
WHERE prompt_tokens + completion_tokens > 0
GROUP BY 1, 2
ON CONFLICT (tenant_id, month, slice) DO NOTHING;
