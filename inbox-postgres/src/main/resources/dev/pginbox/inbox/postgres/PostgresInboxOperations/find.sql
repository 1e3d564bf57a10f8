-- The failure history as its jsonb text (OperatorRows.attempts reads it).
SELECT m.event_id, m.state, m.event_type, m.source, m.aggregate_id, m.payload::text AS payload, m.received_at,
       m.processed_at, m.next_attempt_at, m.error, m.retry_count, m.trace_id, m.failing_since, m.died_at,
       m.attempts::text AS attempts
FROM inbox.find_messages(:name,
    CASE WHEN btrim(CAST(:eventId AS text)) <> '' THEN CAST(:eventId AS text) END,
    CASE WHEN btrim(CAST(:aggregateId AS text)) <> '' THEN CAST(:aggregateId AS text) END,
    inbox.payload_match(CAST(:payloadMatch AS text)), :limit) m
ORDER BY m.received_at, m.event_id
