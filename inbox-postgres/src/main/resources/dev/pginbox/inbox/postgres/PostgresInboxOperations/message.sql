-- The failure history's attempts as three arrays of the same length, oldest first (OperatorRows.message).
SELECT m.event_id, m.state, m.event_type, m.source, m.aggregate_id, m.payload::text AS payload, m.received_at,
       m.processed_at, m.next_attempt_at, m.error, m.retry_count, m.trace_id, m.failing_since, m.died_at,
       a.numbers AS attempt_numbers, a.times AS attempt_times, a.errors AS attempt_errors
FROM inbox.inbox_message(:name, :eventId) m
LEFT JOIN LATERAL (
    SELECT array_agg((e.value ->> 'attempt')::integer ORDER BY e.n) AS numbers,
           array_agg((e.value ->> 'at')::timestamptz ORDER BY e.n) AS times,
           array_agg(e.value ->> 'error' ORDER BY e.n) AS errors
    FROM jsonb_array_elements(CASE WHEN jsonb_typeof(m.attempts) = 'array' THEN m.attempts END)
         WITH ORDINALITY AS e(value, n)) a ON true
