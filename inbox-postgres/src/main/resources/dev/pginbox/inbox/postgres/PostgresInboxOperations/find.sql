SELECT event_id, state, event_type, source, aggregate_id, payload::text AS payload, received_at, processed_at, next_attempt_at, error, retry_count, trace_id
FROM inbox.find_messages(:name,
    CASE WHEN btrim(CAST(:eventId AS text)) <> '' THEN CAST(:eventId AS text) END,
    CASE WHEN btrim(CAST(:aggregateId AS text)) <> '' THEN CAST(:aggregateId AS text) END,
    inbox.payload_match(CAST(:payloadMatch AS text)), :limit)
