-- The tokens of one claimed batch with the original collector's eligibility rules: unexpired,
-- not consumed, account provisioned (activation) or active (password recovery). Ineligible rows
-- are returned too, with the reason, so the collector can count and log what it skips.
-- Time is the database's (now()), as in the original query.
SELECT t.id,
       t.action::text AS action,
       a.email,
       a.login,
       t.secret,
       t.code,
       CASE
           WHEN a.id IS NULL THEN 'account missing'
           WHEN t.consumed_at IS NOT NULL THEN 'consumed'
           WHEN t.expires_at <= extract(epoch FROM now()) THEN 'expired'
           WHEN t.action = 'activation' AND a.status <> 'provisioned' THEN 'account is ' || a.status::text
           WHEN t.action = 'password_recovery' AND a.status <> 'active' THEN 'account is ' || a.status::text
       END AS ineligible
FROM public.tokens t
LEFT JOIN public.accounts a ON a.id = t.account
WHERE t.id = ANY (?)
