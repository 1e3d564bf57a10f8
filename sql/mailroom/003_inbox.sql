-- The inbox that replaces the original `jobs` cursor: every token insert enqueues one message in
-- the same transaction, so a token is never missed (no lost wake-up) nor skipped (no cursor).

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

-- The names in use, so that re-running install.sql keeps a non-default set-up.
CREATE TABLE IF NOT EXISTS mailroom.settings (
    singleton    boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    queue_name   text NOT NULL,
    channel_name text NOT NULL
);

-- Creates the inbox (once), with password recovery claimed before activation and per-account
-- ordering, and points the token trigger at it. NULL arguments keep the recorded names, else
-- the defaults (mailroom, token_insert). Returns the inbox name.
CREATE OR REPLACE FUNCTION mailroom.setup_inbox(p_queue_name text DEFAULT NULL, p_channel_name text DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    s mailroom.settings;
    v_queue text;
    v_channel text;
BEGIN
    SELECT * INTO s FROM mailroom.settings;
    v_queue := coalesce(nullif(p_queue_name, ''), s.queue_name, 'mailroom');
    v_channel := coalesce(nullif(p_channel_name, ''), s.channel_name, 'token_insert');

    IF NOT EXISTS (SELECT 1 FROM inbox.inbox_config WHERE inbox_name = v_queue) THEN
        PERFORM inbox.create_inbox(v_queue, p_channel => v_channel);
    END IF;
    -- Only when not configured yet: an operator's later change survives a re-install.
    IF NOT EXISTS (SELECT 1 FROM inbox.inbox_priority_config WHERE inbox_name = v_queue) THEN
        PERFORM inbox.enable_inbox_priority(v_queue, 'event_type',
            '{"password_recovery": 1, "activation": 2}'::jsonb);
    END IF;
    IF NOT EXISTS (SELECT 1 FROM inbox.inbox_ordering_config WHERE inbox_name = v_queue) THEN
        PERFORM inbox.enable_inbox_ordering(v_queue, 'aggregate_id', 'seq');
    END IF;

    -- The enqueue trigger names its inbox table statically: no dynamic SQL per insert.
    -- Statement level with a transition table: one INSERT into the inbox (and one inbox
    -- notification) per INSERT into tokens, however many rows it inserts.
    -- SECURITY DEFINER: the application role that signs users up needs privileges on its own
    -- tables only, not on the inbox; the message is derived from the new token rows alone. Nobody
    -- may attach the function to another table (CREATE TRIGGER needs EXECUTE, revoked below).
    EXECUTE format($f$
        CREATE OR REPLACE FUNCTION mailroom.trg_after_token_enqueue()
        RETURNS trigger
        LANGUAGE plpgsql
        SECURITY DEFINER
        SET search_path = pg_catalog, pg_temp
        AS $body$
        BEGIN
            -- A token id can come back (a reset sequence, a restored backup) and its event id can
            -- be taken by a row someone else inserted: such a token gets an event id of its own,
            -- 'token-<id>.<random uuid>', rather than failing the sign-up.
            WITH enqueued AS (
                INSERT INTO inbox.%1$I (event_id, event_type, source, aggregate_id, payload)
                SELECT 'token-' || n.id, n.action::text, 'mailroom', n.account::text,
                       jsonb_build_object('token_id', n.id, 'account', n.account)
                FROM new_tokens n
                ORDER BY n.id
                ON CONFLICT (event_id) DO NOTHING
                RETURNING event_id)
            INSERT INTO inbox.%1$I (event_id, event_type, source, aggregate_id, payload)
            SELECT 'token-' || n.id || '.' || gen_random_uuid(), n.action::text, 'mailroom',
                   n.account::text, jsonb_build_object('token_id', n.id, 'account', n.account)
            FROM new_tokens n
            WHERE NOT EXISTS (SELECT 1 FROM enqueued e WHERE e.event_id = 'token-' || n.id)
            ORDER BY n.id;
            RETURN NULL;
        END;
        $body$
        $f$, v_queue);
    REVOKE ALL ON FUNCTION mailroom.trg_after_token_enqueue() FROM PUBLIC;

    CREATE OR REPLACE TRIGGER after_token_enqueue
        AFTER INSERT ON public.tokens
        REFERENCING NEW TABLE AS new_tokens
        FOR EACH STATEMENT
        EXECUTE FUNCTION mailroom.trg_after_token_enqueue();

    INSERT INTO mailroom.settings (queue_name, channel_name) VALUES (v_queue, v_channel)
    ON CONFLICT (singleton) DO UPDATE SET queue_name = EXCLUDED.queue_name, channel_name = EXCLUDED.channel_name;
    RETURN v_queue;
END;
$$;

DO $$
BEGIN
    PERFORM mailroom.setup_inbox(current_setting('mailroom.queue_name', true),
                                 current_setting('mailroom.channel_name', true));
END;
$$;
