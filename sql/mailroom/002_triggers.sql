-- The original four triggers, unchanged in behaviour except that an idempotent sign-up works (1).
-- Table names are schema-qualified so the triggers work whatever the search_path of the session
-- that fires them.

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

-- 1. A provisioned account gets an activation token in the same statement. AFTER INSERT, so it
--    runs only for a row that was inserted: an idempotent sign-up (INSERT ... ON CONFLICT DO
--    NOTHING, or DO UPDATE) of an existing account adds no token (the original BEFORE trigger
--    inserted one for a row that was then skipped, and the deferred foreign key failed the
--    transaction). A failed token insert still fails the account insert: an account never exists
--    without its activation token.
CREATE OR REPLACE FUNCTION public.trg_after_account_insert()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF (NEW.status = 'provisioned') THEN
        INSERT INTO public.tokens (account, action) VALUES (NEW.id, 'activation');
    END IF;
    RETURN NULL;
END;
$$;

DROP TRIGGER IF EXISTS before_account_insert ON public.accounts;
DROP FUNCTION IF EXISTS public.trg_before_account_insert();

CREATE OR REPLACE TRIGGER after_account_insert
    AFTER INSERT ON public.accounts
    FOR EACH ROW
    EXECUTE FUNCTION public.trg_after_account_insert();

-- 2. Status timestamps.
CREATE OR REPLACE FUNCTION public.trg_before_account_status_change()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ts integer := extract(epoch FROM now());
BEGIN
    IF (NEW.status = OLD.status) THEN
        RETURN NEW;
    END IF;

    NEW.status_changed_at = ts;

    IF (NEW.status = 'active') THEN
        IF (OLD.status = 'provisioned') THEN
            NEW.activated_at = ts;
        ELSIF (OLD.status = 'suspended') THEN
            NEW.unsuspended_at = ts;
            NEW.suspended_at = NULL;
            -- Revert status to 'provisioned' if never activated
            IF (OLD.activated_at IS NULL) THEN
                NEW.status = 'provisioned';
            END IF;
        END IF;
    ELSIF (NEW.status = 'suspended') THEN
        NEW.suspended_at = ts;
        NEW.unsuspended_at = NULL;
    END IF;
    RETURN NEW;
END;
$$;

CREATE OR REPLACE TRIGGER before_account_status_change
    BEFORE UPDATE OF status ON public.accounts
    FOR EACH ROW
    EXECUTE FUNCTION public.trg_before_account_status_change();

-- 3. Consuming an activation token activates its provisioned account. Consuming a password
--    recovery token (used, or burned by too many wrong codes) ends the account's other
--    outstanding recovery tokens: once a password was reset, an older email must not reset it
--    again. (The original left recovery tokens alone.)
CREATE OR REPLACE FUNCTION public.trg_after_token_consumed()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF (NEW.action = 'activation') THEN
        UPDATE public.accounts SET status = 'active'
        WHERE id = NEW.account AND status = 'provisioned';
    ELSIF (NEW.action = 'password_recovery') THEN
        UPDATE public.tokens SET consumed_at = NEW.consumed_at
        WHERE account = NEW.account AND action = 'password_recovery'
          AND consumed_at IS NULL AND id <> NEW.id;
    END IF;
    RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER after_token_consumed
    AFTER UPDATE OF consumed_at ON public.tokens
    FOR EACH ROW
    WHEN (NEW.consumed_at IS NOT NULL AND OLD.consumed_at IS NULL)
    EXECUTE FUNCTION public.trg_after_token_consumed();

-- 4. NOTIFY token_insert on every token insert, for any other listener of the original channel.
--    The collector no longer depends on it: it counts inbox messages, not notifications
--    (PostgreSQL folds identical notifications of one transaction into one).
CREATE OR REPLACE FUNCTION public.trg_after_token_inserted()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    NOTIFY token_insert;
    RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER after_token_inserted
    AFTER INSERT ON public.tokens
    FOR EACH ROW
    EXECUTE FUNCTION public.trg_after_token_inserted();
