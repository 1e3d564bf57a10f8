-- The token with this secret and its account's state, locked until the transaction ends so that
-- two clicks on one link are serialised: the second sees the first one's consumed_at. Time is the
-- database's.
SELECT t.id,
       t.account,
       t.action::text AS action,
       t.code,
       t.failed_attempts,
       t.consumed_at IS NOT NULL AS consumed,
       t.expires_at <= extract(epoch FROM now()) AS expired,
       a.status::text AS status
FROM public.tokens t
LEFT JOIN public.accounts a ON a.id = t.account
WHERE t.secret = ?
FOR UPDATE OF t
