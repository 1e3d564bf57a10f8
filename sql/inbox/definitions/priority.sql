-- Priority: lower values are claimed first; event types missing from the map get 999.

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;
CREATE OR REPLACE FUNCTION inbox.enable_inbox_priority(
    p_inbox text,
    p_priority_column text DEFAULT 'event_type',
    p_priority_map jsonb DEFAULT '{}'::jsonb)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    v_key text;
    v_value jsonb;
BEGIN
    PERFORM inbox.check_reserved_names(p_inbox);
    PERFORM inbox.check_column_name(p_priority_column);
    PERFORM inbox.require_column(c, p_priority_column, NULL);
    IF p_priority_map IS NULL OR jsonb_typeof(p_priority_map) <> 'object' THEN
        RAISE EXCEPTION 'priority map must be a JSON object of value -> integer priority'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOR v_key, v_value IN SELECT key, value FROM jsonb_each(p_priority_map) LOOP
        IF jsonb_typeof(v_value) <> 'number' OR (v_value #>> '{}') !~ '^-?[0-9]{1,9}$' THEN
            RAISE EXCEPTION 'priority of % must be an integer, got %', quote_literal(v_key), v_value
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
    END LOOP;
    IF c.managed AND p_priority_column NOT IN ('event_type', 'source', 'aggregate_id') THEN
        RAISE EXCEPTION 'a managed inbox takes its priority from event_type, source or aggregate_id, not %',
            quote_ident(p_priority_column) USING ERRCODE = 'invalid_parameter_value';
    END IF;

    INSERT INTO inbox.inbox_priority_config (inbox_name, priority_column, priority_map)
    VALUES (p_inbox, p_priority_column, p_priority_map)
    ON CONFLICT (inbox_name) DO UPDATE
        SET priority_column = EXCLUDED.priority_column,
            priority_map = EXCLUDED.priority_map,
            enabled_at = now();
    -- A managed inbox's map becomes priority_of_<name> (rebuild_priority_function), the function
    -- behind its stored column "priority"; a tracked table's views compute the priority.
    PERFORM inbox.rebuild_inbox_objects(p_inbox);
    IF c.managed THEN
        -- Recompute the stored priority of waiting messages (an UPDATE of event_type computes it
        -- again: inbox.create_derive_triggers).
        EXECUTE inbox.sql_template('UPDATE {{table}} SET event_type = event_type WHERE {{unprocessed}}',
            inbox.vocabulary(c, ''));
    END IF;
    PERFORM inbox.log_operator_action('enable_priority', p_inbox, jsonb_build_object(
        'column', p_priority_column, 'map', p_priority_map), NULL);
END;
$$;
