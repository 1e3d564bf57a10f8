-- The conflict target is the primary key by name: <name>_pkey is (event_id), or (aggregate_id,
-- event_id) once inbox.distribute_inbox made the inbox a Citus distributed table (it keeps the
-- name), so a duplicate is ignored on both, and a violation of any other unique index stays an
-- error. One plain INSERT: the send function (insert_batch.sql) costs a single message about a
-- tenth more of the server's time.
INSERT INTO <table> (event_id, event_type, source, aggregate_id, payload, trace_id)
VALUES (?, ?, ?, ?, ?::jsonb, ?)
ON CONFLICT ON CONSTRAINT <key> DO NOTHING
