-- The original mailroom schema (tetsuo/mailroom migrations/0_init.up.sql), re-runnable.
-- Tables stay in schema public, where the original created them, so applications keep their
-- queries unchanged; what this project adds lives in schema "mailroom".

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

CREATE SCHEMA IF NOT EXISTS mailroom;

-- gen_random_bytes() for tokens.secret. pgcrypto is a trusted extension (PostgreSQL 13+), so a
-- database owner may create it; the embedded PostgreSQL 18 binaries ship it. When missing it is
-- created in schema mailroom, not in public, where a role allowed to create objects could have
-- planted a function of that name first; a database that has it keeps it where it is.
CREATE EXTENSION IF NOT EXISTS pgcrypto SCHEMA mailroom;

DO $$
BEGIN
    IF to_regtype('public.account_status') IS NULL THEN
        CREATE TYPE public.account_status AS ENUM ('provisioned', 'active', 'suspended');
    END IF;
    IF to_regtype('public.token_action') IS NULL THEN
        CREATE TYPE public.token_action AS ENUM ('activation', 'password_recovery');
    END IF;
END;
$$;

CREATE TABLE IF NOT EXISTS public.accounts (
    id                  BIGSERIAL PRIMARY KEY,
    email               VARCHAR(254) UNIQUE NOT NULL,
    status              public.account_status DEFAULT 'provisioned' NOT NULL,
    login               VARCHAR(254) UNIQUE NOT NULL,
    created_at          INTEGER DEFAULT EXTRACT(EPOCH FROM NOW()) NOT NULL,
    status_changed_at   INTEGER,
    activated_at        INTEGER,
    suspended_at        INTEGER,
    unsuspended_at      INTEGER
);

-- What an account may hold, checked at sign-up and at every later change of the row:
--
-- accounts_email_one_bare_address: a single bare address, local@domain, ASCII, at most 254
--   characters, the local part a dot-atom of at most 64, the domain host-name labels. Mail
--   libraries read an address list: '"w2@x.test" <attacker@evil.test>' is the attacker's mailbox,
--   'grp: a@evil.test, b@evil.test;' is two. The collector's RecipientAddress applies the same
--   rule and never sends to anything else.
-- accounts_login_no_control_characters: the login is shown in emails; no C0/C1 control character
--   (line breaks included), no line or paragraph separator, no bidirectional override or isolate,
--   so it cannot add lines to a message or reorder the text around it.
--
-- A table that already has rows gets the checks NOT VALID: existing rows are kept as they are
-- (the collector dead-letters the tokens of an email it would not send to), new and updated rows
-- are checked. Once the rows are fixed, ALTER TABLE public.accounts VALIDATE CONSTRAINT ... marks
-- a check valid without blocking sign-ups. An empty table gets them validated at once.
DO $$
DECLARE
    v_check record;
BEGIN
    FOR v_check IN
        SELECT * FROM (VALUES
            ('accounts_email_one_bare_address',
             $c$length(email) <= 254 AND strpos(email, '@') BETWEEN 2 AND 65 AND email ~ '^[A-Za-z0-9!#$%&''*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&''*+/=?^_`{|}~-]+)*@[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$'$c$),
            ('accounts_login_no_control_characters',
             $c$login !~ '[\u0001-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]'$c$)
        ) AS c(name, expression)
    LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_constraint
                       WHERE conrelid = 'public.accounts'::regclass AND conname = v_check.name) THEN
            EXECUTE format('ALTER TABLE public.accounts ADD CONSTRAINT %I CHECK (%s) NOT VALID',
                           v_check.name, v_check.expression);
            -- The ALTER holds the table's lock: no row can arrive between this look and the scan.
            IF NOT EXISTS (SELECT 1 FROM public.accounts) THEN
                EXECUTE format('ALTER TABLE public.accounts VALIDATE CONSTRAINT %I', v_check.name);
            END IF;
        END IF;
    END LOOP;
END;
$$;

CREATE TABLE IF NOT EXISTS public.tokens (
    id          BIGSERIAL PRIMARY KEY,
    action      public.token_action NOT NULL,
    secret      BYTEA UNIQUE NOT NULL,  -- DEFAULT: gen_random_bytes(32), set below
    code        VARCHAR(5),
    account     BIGINT NOT NULL,
    expires_at  INTEGER DEFAULT EXTRACT(EPOCH FROM NOW() + INTERVAL '15 minute') NOT NULL,
    consumed_at INTEGER,
    created_at  INTEGER DEFAULT EXTRACT(EPOCH FROM NOW()) NOT NULL,

    FOREIGN KEY (account) REFERENCES public.accounts (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);

-- Wrong codes given for a password recovery token; the verifier burns the token (sets
-- consumed_at) at its limit, so a code cannot be guessed through one link.
ALTER TABLE public.tokens ADD COLUMN IF NOT EXISTS failed_attempts integer NOT NULL DEFAULT 0;

-- Both defaults name gen_random_bytes by the schema pgcrypto is in, whatever the search_path of
-- the session that inserts a token. Set with ALTER so that a database created by the original
-- migration gets them too.
--
-- code: the original default, LPAD(TO_CHAR(RANDOM() * 100000, 'FM00000'), 5, '0'), printed
-- '#####' for values >= 99999.5 and came from random(), a seeded generator whose next values
-- anyone who learns its state (or calls setseed() in the session) can tell. Now: 48 bits of
-- pgcrypto's cryptographic generator taken modulo 100000 (a bias below 4e-10), always 5 digits.
DO $$
DECLARE
    v_pgcrypto name := (SELECT n.nspname FROM pg_extension e
                        JOIN pg_namespace n ON n.oid = e.extnamespace
                        WHERE e.extname = 'pgcrypto');
BEGIN
    EXECUTE format('ALTER TABLE public.tokens ALTER COLUMN secret SET DEFAULT %I.gen_random_bytes(32)',
        v_pgcrypto);
    EXECUTE format($f$ALTER TABLE public.tokens ALTER COLUMN code SET DEFAULT
        lpad(((('x' || encode(%I.gen_random_bytes(6), 'hex'))::bit(48)::bigint %% 100000))::text, 5, '0')$f$,
        v_pgcrypto);
END;
$$;

CREATE INDEX IF NOT EXISTS accounts_id_status_idx ON public.accounts (id, status);
CREATE INDEX IF NOT EXISTS tokens_account_idx ON public.tokens (account);
CREATE INDEX IF NOT EXISTS tokens_id_expires_consumed_action_idx
    ON public.tokens (id, expires_at, consumed_at, action);
