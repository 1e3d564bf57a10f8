-- Per-aggregate ordering.

-- Turns on strict per-aggregate ordering: claim_<name> then only hands out the head (earliest
-- unprocessed message by p_sequence_column, then arrival) of each aggregate, and the view
-- inbox.next_<name> shows those heads. A timestamp or an integer sequence column both work.
CREATE OR REPLACE FUNCTION inbox.enable_inbox_ordering(
    p_inbox text,
    p_aggregate_column text DEFAULT 'aggregate_id',
    p_sequence_column text DEFAULT 'received_at')
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    v_type text;
BEGIN
    PERFORM inbox.check_column_name(p_aggregate_column);
    PERFORM inbox.check_column_name(p_sequence_column);
    PERFORM inbox.require_column(c, p_aggregate_column, NULL);
    v_type := inbox.require_column(c, p_sequence_column,
        ARRAY['timestamp with time zone', 'timestamp without time zone', 'bigint', 'integer', 'smallint', 'numeric', 'date']);
    IF NOT c.managed AND p_sequence_column IS NULL THEN
        RAISE EXCEPTION 'a sequence column is required' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    INSERT INTO inbox.inbox_ordering_config (inbox_name, aggregate_column, sequence_column)
    VALUES (p_inbox, p_aggregate_column, p_sequence_column)
    ON CONFLICT (inbox_name) DO UPDATE
        SET aggregate_column = EXCLUDED.aggregate_column,
            sequence_column = EXCLUDED.sequence_column,
            enabled_at = now();
    IF c.managed THEN
        -- Serves the head test of the claim (is there an earlier unprocessed message?).
        EXECUTE format('DROP INDEX IF EXISTS inbox.%I', p_inbox || '_ordering_idx');
        EXECUTE format('CREATE INDEX %I ON %s (%I, %I, seq) WHERE processed_at IS NULL',
            p_inbox || '_ordering_idx', inbox.inbox_table(c), p_aggregate_column, p_sequence_column);
    END IF;
    PERFORM inbox.rebuild_inbox_objects(p_inbox);
END;
$$;

CREATE OR REPLACE FUNCTION inbox.disable_inbox_ordering(p_inbox text)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
BEGIN
    DELETE FROM inbox.inbox_ordering_config WHERE inbox_name = p_inbox;
    IF c.managed THEN
        EXECUTE format('DROP INDEX IF EXISTS inbox.%I', p_inbox || '_ordering_idx');
    END IF;
    PERFORM inbox.rebuild_inbox_objects(p_inbox);
END;
$$;

-- Checks that a column exists on an inbox's table (and optionally has one of some types);
-- returns its type.
CREATE OR REPLACE FUNCTION inbox.require_column(c inbox.inbox_config, p_column text, p_types text[])
RETURNS text
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_type text;
BEGIN
    SELECT format_type(a.atttypid, NULL) INTO v_type
    FROM pg_attribute a
    WHERE a.attrelid = inbox.inbox_table(c)::regclass AND a.attname = p_column
      AND a.attnum > 0 AND NOT a.attisdropped;
    IF v_type IS NULL THEN
        RAISE EXCEPTION 'column % does not exist in %', quote_ident(p_column), inbox.inbox_table(c)
            USING ERRCODE = 'undefined_column';
    END IF;
    IF p_types IS NOT NULL AND NOT v_type = ANY (p_types) THEN
        RAISE EXCEPTION 'column % of % has type %, expected one of %', quote_ident(p_column),
            inbox.inbox_table(c), v_type, array_to_string(p_types, ', ')
            USING ERRCODE = 'datatype_mismatch';
    END IF;
    RETURN v_type;
END;
$$;
