SELECT event_id, state, event_type, source, aggregate_id, payload::text AS payload, received_at, processed_at, next_attempt_at, error, retry_count, trace_id FROM inbox.inbox_message(:name, :eventId)
