-- Migrating from the original collector: its `jobs` cursor (last_seq) marks the tokens it has
-- printed. Tokens after the cursor that could still be sent (unexpired, unconsumed) are enqueued
-- once, and the cursor is moved past them so an old collector started by mistake does not send
-- them again. Nothing happens on a database without a `jobs` table. The jobs table itself is
-- left in place (drop it once the old collector is retired).

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;
DO $$
DECLARE
    v_queue text := (SELECT queue_name FROM mailroom.settings);
    v_last bigint;
    v_count bigint;
BEGIN
    IF to_regclass('public.jobs') IS NULL THEN
        RETURN;
    END IF;
    EXECUTE $q$SELECT last_seq FROM public.jobs WHERE job_type::text = 'mailroom' FOR UPDATE$q$ INTO v_last;
    IF v_last IS NULL THEN
        RETURN;
    END IF;
    EXECUTE format($q$
        INSERT INTO inbox.%I (event_id, event_type, source, aggregate_id, payload)
        SELECT 'token-' || t.id, t.action::text, 'mailroom', t.account::text,
               jsonb_build_object('token_id', t.id, 'account', t.account)
        FROM public.tokens t
        WHERE t.id > $1 AND t.consumed_at IS NULL AND t.expires_at > extract(epoch FROM now())
        ORDER BY t.id
        ON CONFLICT (event_id) DO NOTHING$q$, v_queue) USING v_last;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    EXECUTE $q$UPDATE public.jobs SET last_seq = greatest(last_seq, (SELECT max(id) FROM public.tokens))
               WHERE job_type::text = 'mailroom'$q$;
    IF v_count > 0 THEN
        -- WARNING, not NOTICE: install.sql hides notices, and an operator should see the hand-over.
        RAISE WARNING 'mailroom: enqueued % token(s) after the jobs cursor %', v_count, v_last;
    END IF;
END;
$$;
