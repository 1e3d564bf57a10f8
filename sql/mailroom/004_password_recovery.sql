-- Requesting a password recovery: the original left this to the application (an INSERT into
-- tokens). This function is the documented way.
--
--   SELECT mailroom.request_password_recovery('alice');             -- login or email
--
-- Returns the new token's id, or NULL when no email will be sent: no such account, the account
-- is not active (recovery mails go to active accounts only, as the collector's rules say), or a
-- recovery token of the account issued less than p_min_interval ago is still unused and
-- unexpired (so a button pressed ten times sends one email). Answer your user the same way in
-- every case, so the reply does not tell whether an account exists.

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;
CREATE OR REPLACE FUNCTION mailroom.request_password_recovery(
    p_login_or_email text,
    p_min_interval interval DEFAULT interval '1 minute')
RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_account bigint;
    v_token bigint;
BEGIN
    -- A login wins over an email that happens to equal another account's login.
    SELECT a.id INTO v_account
    FROM public.accounts a
    WHERE (a.login = p_login_or_email OR a.email = p_login_or_email) AND a.status = 'active'
    ORDER BY (a.login = p_login_or_email) DESC
    LIMIT 1
    FOR UPDATE;  -- serialises concurrent requests of one account for the check below
    IF v_account IS NULL THEN
        RETURN NULL;
    END IF;
    IF EXISTS (SELECT 1 FROM public.tokens t
               WHERE t.account = v_account AND t.action = 'password_recovery'
                 AND t.consumed_at IS NULL
                 AND t.expires_at > extract(epoch FROM now())
                 AND t.created_at > extract(epoch FROM now() - p_min_interval)) THEN
        RETURN NULL;
    END IF;
    INSERT INTO public.tokens (account, action) VALUES (v_account, 'password_recovery')
    RETURNING id INTO v_token;
    RETURN v_token;
END;
$$;
