-- Snapshot of everything the generators write, for one inbox of every kind: the definitions of
-- the generated functions, views, indexes and triggers, and the SQL fragments the operations
-- functions build at run time. A refactoring of the generators runs it before and after, on an
-- empty database, and compares the two outputs: a generated body that stays identical keeps its
-- plans, and so its cost.
--
--   createdb snap && psql -X -q -v ON_ERROR_STOP=1 -d snap -f sql/inbox/install.sql \
--     && psql -X -q -A -t -v ON_ERROR_STOP=1 -d snap -f sql/tests/generated_objects_snapshot.sql > before.txt
--
-- Every option that changes generated SQL appears at least once: ordering by a timestamp and by
-- seq, a priority map, a maximum payload size, another max_retries; tracked tables with every
-- optional column and with none (side table, arrival by id), ordered, with a priority map, with
-- notifications, and a partitioned one (claimed by id, not ctid).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;

SELECT inbox.create_inbox('snap_plain');
SELECT inbox.create_inbox('snap_limits', p_max_retries => 5, p_channel => 'snap_channel');
SELECT inbox.set_max_payload_size('snap_limits', 1000);
SELECT inbox.create_inbox('snap_ordered');
SELECT inbox.enable_inbox_ordering('snap_ordered', 'aggregate_id', 'received_at');
SELECT inbox.create_inbox('snap_ordered_seq');
SELECT inbox.enable_inbox_ordering('snap_ordered_seq', 'aggregate_id', 'seq');
SELECT inbox.create_inbox('snap_priority');
SELECT inbox.enable_inbox_priority('snap_priority', 'event_type', '{"urgent": 1, "bulk": 500}');
SELECT inbox.create_inbox('snap_ordered_priority');
SELECT inbox.enable_inbox_ordering('snap_ordered_priority', 'aggregate_id', 'received_at');
SELECT inbox.enable_inbox_priority('snap_ordered_priority', 'source', '{"web": 5}');

CREATE SCHEMA snap_app;
CREATE TABLE snap_app.full_events (
    event_id text PRIMARY KEY, event_type text, processed_at timestamptz, received_at timestamptz,
    aggregate_id text, retry_count integer, error text, payload jsonb, seq_no bigint);
CREATE TABLE snap_app.bare_events (id bigint PRIMARY KEY, kind text, done_at timestamp);
CREATE TABLE snap_app.ordered_events (LIKE snap_app.full_events INCLUDING ALL);
CREATE TABLE snap_app.priority_events (LIKE snap_app.full_events INCLUDING ALL);
CREATE TABLE snap_app.notified_events (id uuid PRIMARY KEY, event_type text, processed_at timestamptz);
CREATE TABLE snap_app.parted_events (
    event_id text, event_type text, processed_at timestamptz, received_at timestamptz,
    aggregate_id text, payload jsonb) PARTITION BY HASH (event_id);
CREATE TABLE snap_app.parted_events_0 PARTITION OF snap_app.parted_events FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE snap_app.parted_events_1 PARTITION OF snap_app.parted_events FOR VALUES WITH (MODULUS 2, REMAINDER 1);

SELECT inbox.enable_inbox_tracking('snap_tracked_full', 'snap_app.full_events', p_max_retries => 4);
SELECT inbox.enable_inbox_tracking('snap_tracked_bare', 'snap_app.bare_events', p_id_column => 'id',
    p_processed_at_column => 'done_at', p_event_type_column => 'kind');
SELECT inbox.enable_inbox_tracking('snap_tracked_ordered', 'snap_app.ordered_events');
SELECT inbox.enable_inbox_ordering('snap_tracked_ordered', 'aggregate_id', 'seq_no');
SELECT inbox.enable_inbox_tracking('snap_tracked_priority', 'snap_app.priority_events');
SELECT inbox.enable_inbox_priority('snap_tracked_priority', 'event_type', '{"urgent": 1}');
SELECT inbox.enable_inbox_tracking('snap_tracked_notified', 'snap_app.notified_events', p_id_column => 'id',
    p_notify => true);
SELECT inbox.enable_inbox_tracking('snap_tracked_parted', 'snap_app.parted_events');

-- Generated functions (the claims, send, priority and derive functions).
SELECT '=== function ' || p.oid::regprocedure::text || E'\n' || pg_get_functiondef(p.oid)
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = 'inbox' AND p.proname ~ '^(claim|send|priority_of|derive)_snap_'
ORDER BY p.oid::regprocedure::text;

-- Generated views.
SELECT '=== view ' || c.oid::regclass::text || E'\n' || pg_get_viewdef(c.oid, true)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'inbox' AND c.relkind = 'v' AND c.relname ~ 'snap_'
ORDER BY c.relname;

-- Generated tables, indexes and triggers (on the inboxes' tables and the tracked ones).
SELECT '=== column ' || a.attrelid::regclass::text || '.' || a.attname || ' '
       || format_type(a.atttypid, a.atttypmod) || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '')
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE n.nspname = 'inbox' AND c.relkind = 'r' AND c.relname ~ '^snap_' AND a.attnum > 0
ORDER BY c.relname, a.attnum;
SELECT '=== reloptions ' || c.oid::regclass::text || ' ' || coalesce(c.reloptions::text, '')
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname IN ('inbox', 'snap_app') AND c.relkind IN ('r', 'p') AND c.relname ~ 'snap_|events'
ORDER BY 1;
SELECT '=== index ' || pg_get_indexdef(i.indexrelid)
FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE (n.nspname = 'inbox' AND c.relname ~ '^snap_') OR n.nspname = 'snap_app'
ORDER BY 1;
SELECT '=== trigger ' || pg_get_triggerdef(t.oid)
FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE NOT t.tgisinternal AND ((n.nspname = 'inbox' AND c.relname ~ '^snap_') OR n.nspname = 'snap_app')
ORDER BY 1;

-- The SQL the operations functions build at run time from an inbox's configuration.
SELECT '=== fragments ' || c.inbox_name || E'\n' || concat_ws(E'\n',
    'pending: ' || inbox.state_predicate(c, 'pending'),
    'dead: ' || inbox.state_predicate(c, 'dead'),
    'processed: ' || inbox.state_predicate(c, 'processed'),
    'retries: ' || inbox.retries_sql(c),
    'error: ' || inbox.error_sql(c),
    'replay: ' || inbox.replay_resequence_sql(c),
    'dead selection: ' || inbox.dead_selection_sql(c, false, true),
    'oldest: ' || CASE WHEN c.received_at_column IS NULL THEN '-' ELSE inbox.oldest_pending_sql(c, 'm.*') END,
    'oldest stalled: ' || CASE WHEN c.received_at_column IS NULL THEN '-' ELSE inbox.oldest_pending_sql(c, 'm.*', true) END,
    'blocked heads: ' || coalesce(inbox.blocked_heads_sql(c.inbox_name), '-'))
FROM inbox.inbox_config c
WHERE c.inbox_name ~ '^snap_'
ORDER BY c.inbox_name;
