-- Per-aggregate ordering.

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

-- Turns on strict per-aggregate ordering: claim_<name> then only hands out the head (earliest
-- unprocessed message by p_sequence_column, then arrival) of each aggregate, and the view
-- inbox.next_<name> shows those heads. A timestamp or an integer sequence column both work.
-- Without one, a managed inbox is ordered by seq (arrival: its head test then starts at the order
-- floor, so it keeps its pace through a held xmin horizon) and a tracked table by received_at.
CREATE OR REPLACE FUNCTION inbox.enable_inbox_ordering(
    p_inbox text,
    p_aggregate_column text DEFAULT 'aggregate_id',
    p_sequence_column text DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    v_type text;
BEGIN
    p_sequence_column := coalesce(p_sequence_column, CASE WHEN c.managed THEN 'seq' ELSE 'received_at' END);
    PERFORM inbox.check_reserved_names(p_inbox);
    PERFORM inbox.check_column_name(p_aggregate_column);
    PERFORM inbox.check_column_name(p_sequence_column);
    PERFORM inbox.require_column(c, p_aggregate_column, NULL);
    v_type := inbox.require_column(c, p_sequence_column,
        ARRAY['timestamp with time zone', 'timestamp without time zone', 'bigint', 'integer', 'smallint', 'numeric', 'date']);
    INSERT INTO inbox.inbox_ordering_config (inbox_name, aggregate_column, sequence_column)
    VALUES (p_inbox, p_aggregate_column, p_sequence_column)
    ON CONFLICT (inbox_name) DO UPDATE
        SET aggregate_column = EXCLUDED.aggregate_column,
            sequence_column = EXCLUDED.sequence_column,
            enabled_at = now();
    IF c.managed THEN
        -- rebuild_inbox_objects creates it again on the new columns.
        PERFORM inbox.drop_ordering_index(c);
        -- The claim floors may have passed messages a dead letter held back in the old order
        -- (inbox.advance_floors).
        PERFORM inbox.reset_claim_floors();
    END IF;
    PERFORM inbox.rebuild_inbox_objects(p_inbox);
    PERFORM inbox.log_operator_action('enable_ordering', p_inbox, jsonb_build_object(
        'aggregate_column', p_aggregate_column, 'sequence_column', p_sequence_column), NULL);
END;
$$;

-- Drops <name>_ordering_idx and <name>_ordering_dead_idx where they are the inbox's (see
-- inbox.belongs_to_inbox).
CREATE OR REPLACE FUNCTION inbox.drop_ordering_index(c inbox.inbox_config)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET client_min_messages = warning
AS $$
DECLARE
    v_index text;
BEGIN
    FOREACH v_index IN ARRAY ARRAY[c.inbox_name || '_ordering_idx', c.inbox_name || '_ordering_dead_idx'] LOOP
        IF inbox.belongs_to_inbox(c, v_index) THEN
            EXECUTE format('DROP INDEX inbox.%I', v_index);
        END IF;
    END LOOP;
END;
$$;

CREATE OR REPLACE FUNCTION inbox.disable_inbox_ordering(p_inbox text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
BEGIN
    DELETE FROM inbox.inbox_ordering_config WHERE inbox_name = p_inbox;
    IF c.managed THEN
        PERFORM inbox.drop_ordering_index(c);
        -- The claim floors may have passed messages a dead letter held back (inbox.advance_floors).
        PERFORM inbox.reset_claim_floors();
    END IF;
    PERFORM inbox.rebuild_inbox_objects(p_inbox);
    PERFORM inbox.log_operator_action('disable_ordering', p_inbox, '{}', NULL);
END;
$$;

-- Checks that a column exists on an inbox's table (and optionally has one of some types);
-- returns its type.
CREATE OR REPLACE FUNCTION inbox.require_column(c inbox.inbox_config, p_column text, p_types text[])
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
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

-- Aggregates whose unprocessed messages are out of sequence or missing, and aggregates stuck
-- behind a dead letter. One row per finding:
--   sequence_gap           integer sequences: the message's sequence is more than one past the
--                          previous one of its aggregate (the previous unprocessed message, or the
--                          last processed one: a gap right after the processed history counts);
--   duplicate_sequence     integer sequences: the same sequence value as the previous message;
--   out_of_order           an unprocessed message whose sequence is lower than that of a message of
--                          the same aggregate that was already processed (it arrived too late);
--   blocked_by_dead_letter the aggregate's head is a dead letter and messages wait behind it
--                          (replay or purge it to unblock them).
--   blocked_by_never_due   managed inboxes: the aggregate's head waits with next_attempt_at =
--                          'infinity', so it is never claimed, and messages wait behind it (set its
--                          next_attempt_at to '-infinity' to release it).
-- A diagnostic: it reads the unprocessed rows and the processed rows of their aggregates.
CREATE OR REPLACE FUNCTION inbox.inbox_ordering_gaps(p_inbox text)
RETURNS TABLE (aggregate_id text, issue text, event_id text, sequence text, previous_sequence text, detail text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    o inbox.inbox_ordering_config;
    v_type text;
    v_integer boolean;
    v_integer_findings text := '';
BEGIN
    SELECT * INTO o FROM inbox.inbox_ordering_config WHERE inbox_name = p_inbox;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'ordering is not enabled for inbox %; call inbox.enable_inbox_ordering first', quote_literal(p_inbox)
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    v_type := inbox.require_column(c, o.sequence_column, NULL);
    v_integer := v_type IN ('smallint', 'integer', 'bigint', 'numeric');
    IF v_integer THEN
        -- Only integer sequences promise consecutive values; timestamps legitimately repeat
        -- (one INSERT statement stamps all its rows with the same now()).
        v_integer_findings := $f$
            UNION ALL
            SELECT ch.agg, 'duplicate_sequence', ch.id, ch.s::text, ch.prev_s::text,
                   format('sequence %s appears more than once', ch.s), ch.s
            FROM chain ch WHERE ch.s = ch.prev_s AND (ch.done_s IS NULL OR ch.s >= ch.done_s)
            UNION ALL
            SELECT ch.agg, 'sequence_gap', ch.id, ch.s::text, ch.prev_s::text,
                   CASE WHEN ch.s - ch.prev_s = 2 THEN format('sequence %s is missing', ch.prev_s + 1)
                        ELSE format('sequences %s to %s are missing', ch.prev_s + 1, ch.s - 1) END, ch.s
            FROM chain ch WHERE ch.s > ch.prev_s + 1 AND (ch.done_s IS NULL OR ch.s >= ch.done_s)
$f$;
    END IF;

    RETURN QUERY EXECUTE inbox.sql_template($q$
        WITH unprocessed AS (
            SELECT {{aggregate}}::text AS agg, {{id}}::text AS id, {{sequence}} AS s, {{tie}} AS arrival, ({{dead}}) AS dead,
                   {{never_due}} AS never_due
            FROM {{table}} m
            WHERE {{unprocessed}} AND {{aggregate}} IS NOT NULL
        ), last_done AS (
            SELECT {{aggregate}}::text AS agg, max({{sequence}}) AS s
            FROM {{table}} m
            WHERE {{processed}} AND {{aggregate}}::text IN (SELECT u.agg FROM unprocessed u)
            GROUP BY 1
        ), chain AS (
            SELECT u.agg, u.id, u.s, u.dead, u.never_due, l.s AS done_s,
                   greatest(lag(u.s) OVER w, l.s) AS prev_s,
                   row_number() OVER w AS pos,
                   count(*) OVER (PARTITION BY u.agg) AS n
            FROM unprocessed u LEFT JOIN last_done l ON l.agg = u.agg
            WINDOW w AS (PARTITION BY u.agg ORDER BY u.s, u.arrival)
        ), findings AS (
            SELECT ch.agg, 'out_of_order'::text AS issue, ch.id, ch.s::text AS seq, ch.done_s::text AS prev,
                   format('sequence %s is before %s, already processed', ch.s, ch.done_s) AS detail, ch.s AS sort_s
            FROM chain ch WHERE ch.s < ch.done_s
{{integer_findings}}            UNION ALL
            SELECT ch.agg, 'blocked_by_dead_letter', ch.id, ch.s::text, NULL,
                   format('dead letter %s blocks %s later message(s)', ch.id, ch.n - 1), ch.s
            FROM chain ch WHERE ch.pos = 1 AND ch.dead AND ch.n > 1
            UNION ALL
            SELECT ch.agg, 'blocked_by_never_due', ch.id, ch.s::text, NULL,
                   format('message %s is never due (next_attempt_at = infinity) and blocks %s later message(s)',
                          ch.id, ch.n - 1), ch.s
            FROM chain ch WHERE ch.pos = 1 AND ch.never_due AND NOT ch.dead AND ch.n > 1
        )
        SELECT f.agg, f.issue, f.id, f.seq, f.prev, f.detail FROM findings f
        ORDER BY f.agg, f.sort_s, f.issue$q$,
        inbox.vocabulary(c) || jsonb_build_object('integer_findings', v_integer_findings,
            'never_due', CASE WHEN c.managed THEN 'm.next_attempt_at = ''infinity''' ELSE 'false' END));
END;
$$;

-- The SQL of "an earlier unprocessed message of the same aggregate exists" (dead or backing off
-- included) for the message whose aggregate, sequence and seq are the given SQL expressions: what
-- keeps a message from being its aggregate's head. The ordered claim, its phase-2 gate,
-- count_waiting and await_held_head all test it, so "blocked" means one thing.
-- A btree stops a scan bounded by a row comparison only where the comparison's first column
-- decides. Scanning forwards from the aggregate's first entry (EXISTS), a head whose aggregate's
-- messages share its sequence value (the default received_at: one sendAll, one transaction) walked
-- all of them, 3-4x the cost of a head test. Unless the sequence is seq itself (unique, so the
-- first column always decides), the test reads <name>_ordering_idx backwards from the message's
-- own key instead: the entry before it is of its aggregate (blocked) or not (a head). Where both
-- read one entry, the backward form costs a claim 1.4-3.4 % more, so seq keeps the EXISTS
-- (docs/performance.md, "Ordered claim"). seq is never NULL, so IS NOT NULL means "found"; a NULL
-- sequence value compares as in the EXISTS (never earlier).
-- With p_floor (SQL of a seq below which no unprocessed message waits but dead letters and the
-- messages they hold back, NULL at run time for none: inbox.order_floor_sql) and the sequence seq,
-- the probe's range starts at the floor: it passes over the aggregate's entries below it, which
-- while the xmin horizon is held are its messages processed since, a heap visit each. The dead letters below the floor are found
-- through <name>_ordering_dead_idx instead (p_dead: the dead-letter test over alias d, the
-- index's predicate), probed only when the inbox has any (one look per statement): a probe per
-- head cost a claim of 100 heads about 8 %. With another sequence column p_floor is not used: its
-- index is in that column's order, where the entries below the floor lie among the others, and a
-- test of seq skipping them inside the index kept them from ever being marked dead there, which
-- cost a drain 8-15 % (docs/performance.md, "Claim floors").
CREATE OR REPLACE FUNCTION inbox.earlier_unprocessed_sql(p_table text, p_aggregate_column text,
    p_sequence_column text, p_aggregate text, p_sequence text, p_seq text,
    p_floor text DEFAULT NULL, p_dead text DEFAULT NULL)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT inbox.sql_template(CASE WHEN p_sequence_column <> 'seq' THEN
        '(SELECT e.seq FROM {{table}} e WHERE e.{{aggregate_column}} = {{aggregate}} AND e.processed_at IS NULL'
            ' AND (e.{{sequence_column}}, e.seq) < ({{sequence}}, {{seq}})'
            ' ORDER BY e.{{aggregate_column}} DESC, e.{{sequence_column}} DESC, e.seq DESC LIMIT 1) IS NOT NULL'
    WHEN p_floor IS NULL THEN
        'EXISTS (SELECT 1 FROM {{table}} e WHERE e.{{aggregate_column}} = {{aggregate}} AND e.processed_at IS NULL'
            ' AND (e.seq, e.seq) < ({{sequence}}, {{seq}}))'
    ELSE
        '(EXISTS (SELECT 1 FROM {{table}} e WHERE e.{{aggregate_column}} = {{aggregate}} AND e.processed_at IS NULL'
            ' AND (e.seq, e.seq) < ({{sequence}}, {{seq}}) AND e.seq >= coalesce({{floor}}, ''-9223372036854775808''::bigint))'
        ' OR (SELECT EXISTS (SELECT 1 FROM {{table}} d WHERE {{dead}}))'
        ' AND EXISTS (SELECT 1 FROM {{table}} d WHERE d.{{aggregate_column}} = {{aggregate}}'
            ' AND {{dead}} AND d.seq < {{seq}}))'
    END, jsonb_build_object('table', p_table, 'aggregate_column', quote_ident(p_aggregate_column),
        'sequence_column', quote_ident(p_sequence_column), 'aggregate', p_aggregate, 'sequence', p_sequence,
        'seq', p_seq, 'floor', p_floor, 'dead', p_dead))
$$;

-- The SQL of an ordered inbox's order floor for the head test (earlier_unprocessed_sql): a seq
-- below which no message waits but dead letters and the messages they hold back, the lowest
-- claim floor (p_floor: SQL of element 10 of inbox.advance_floors's state, NULL while a level is
-- walked from its start), or NULL when a replay or alter_inbox has moved
-- inbox.claim_floor_resets since the floors moved (p_resets: SQL of the counter's value they moved
-- after): its messages may wait below them. The counter is
-- read inside the statement that tests, after its snapshot: a replay that statement sees has
-- moved it. The claim floors are hints for the claim (one too high delays a message), but here
-- one too high would let a message pass an earlier one of its aggregate, so the bound holds only
-- what the rules of inbox.advance_floors hold: a message made unprocessed by hand (an owner's
-- UPDATE of processed_at, a priority outside the map set by the owner) may be passed by its
-- aggregate's later messages until the session's next sweep.
CREATE OR REPLACE FUNCTION inbox.order_floor_sql(p_floor text, p_resets text)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT inbox.sql_template('(SELECT CASE WHEN coalesce(pg_sequence_last_value(''inbox.claim_floor_resets''::regclass), 0)
            = {{resets}} THEN {{floor}} END)', jsonb_build_object('floor', p_floor, 'resets', p_resets))
$$;

-- The SQL of a CTE "heads(agg, tid)": the head (earliest unprocessed message by sequence, then
-- arrival) of every aggregate, in aggregate order, found by a loose index scan over
-- <name>_ordering_idx, one descent per aggregate. The ordered claim, count_waiting and the blocked
-- aggregates of health all use it, so "head" means one thing.
-- With p_floor and p_dead (as for earlier_unprocessed_sql) and the sequence seq, each descent
-- starts at the order floor within the aggregate: the entries below it, which while the xmin
-- horizon is held are the aggregate's messages processed since, are passed inside the index (a
-- key comparison each, no heap visit). Below the floor only dead letters wait, found through
-- <name>_ordering_dead_idx when the inbox has any (one look per statement): each step takes the
-- lower of the next aggregate at or above the floor and the next one with a dead letter below it,
-- and a dead letter below the floor is its aggregate's head. One CTE "heads_walk" comes before it.
CREATE OR REPLACE FUNCTION inbox.aggregate_heads_sql(p_table text, p_aggregate_column text, p_sequence_column text,
    p_floor text DEFAULT NULL, p_dead text DEFAULT NULL)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT inbox.sql_template(CASE WHEN p_sequence_column <> 'seq' OR p_floor IS NULL THEN $q$heads AS (
        (SELECT h.{{aggregate_column}} AS agg, h.ctid AS tid FROM {{table}} h
         WHERE h.processed_at IS NULL AND h.{{aggregate_column}} IS NOT NULL
         ORDER BY h.{{aggregate_column}}, h.{{sequence_column}}, h.seq LIMIT 1)
        UNION ALL
        SELECT n.agg, n.tid FROM heads p CROSS JOIN LATERAL (
            SELECT h.{{aggregate_column}} AS agg, h.ctid AS tid FROM {{table}} h
            WHERE h.processed_at IS NULL AND h.{{aggregate_column}} > p.agg
            ORDER BY h.{{aggregate_column}}, h.{{sequence_column}}, h.seq LIMIT 1) n)$q$
    ELSE replace(replace($q$heads_walk AS (
        SELECT s.agg, s.tid FROM ({{step_first}}) s
        UNION ALL
        SELECT s.agg, s.tid FROM heads_walk p CROSS JOIN LATERAL ({{step_next}}) s WHERE p.agg IS NOT NULL),
    heads AS (SELECT w.agg, w.tid FROM heads_walk w WHERE w.agg IS NOT NULL)$q$,
        '{{step_first}}', replace(x.step, '{{after}}', 'IS NOT NULL')), '{{step_next}}', replace(x.step, '{{after}}', '> p.agg'))
    END, jsonb_build_object('table', p_table, 'aggregate_column', quote_ident(p_aggregate_column),
            'sequence_column', quote_ident(p_sequence_column), 'floor', p_floor, 'dead', p_dead))
    -- One step of the walk with a floor: the next aggregate ({{after}} the previous one) at or
    -- above the floor, and the next one with a dead letter below it; the lower one, and its head.
    FROM (SELECT $s$SELECT CASE WHEN d.agg <= a.agg OR a.agg IS NULL THEN d.agg ELSE a.agg END AS agg,
                   CASE WHEN d.agg <= a.agg OR a.agg IS NULL THEN d.tid ELSE a.tid END AS tid
            FROM (SELECT 1) one
            LEFT JOIN LATERAL (SELECT h.{{aggregate_column}} AS agg, h.ctid AS tid FROM {{table}} h
                WHERE h.processed_at IS NULL AND h.{{aggregate_column}} {{after}}
                  AND h.seq >= coalesce({{floor}}, '-9223372036854775808'::bigint)
                ORDER BY h.{{aggregate_column}}, h.seq LIMIT 1) a ON true
            LEFT JOIN LATERAL (SELECT d.{{aggregate_column}} AS agg, d.ctid AS tid FROM {{table}} d
                WHERE (SELECT EXISTS (SELECT 1 FROM {{table}} d WHERE {{dead}}))
                  AND {{dead}} AND d.{{aggregate_column}} {{after}}
                  AND d.seq < coalesce({{floor}}, '-9223372036854775808'::bigint)
                ORDER BY d.{{aggregate_column}}, d.seq LIMIT 1) d ON true$s$ AS step) x
$$;
