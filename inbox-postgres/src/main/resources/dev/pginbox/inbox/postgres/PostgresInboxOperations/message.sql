-- The failure history as its jsonb text (OperatorRows.attempts reads it).
SELECT m.event_id, m.state, m.event_type, m.source, m.aggregate_id, m.payload::text AS payload, m.received_at,
       m.processed_at, m.next_attempt_at, m.error, m.retry_count, m.trace_id, m.failing_since, m.died_at,
       m.attempts::text AS attempts
FROM inbox.inbox_message(:name, :eventId) m
