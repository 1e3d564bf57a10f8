INSERT INTO <table> (event_id, event_type, source, aggregate_id, payload, trace_id)
SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::jsonb[], ?::text[])
    AS m (event_id, event_type, source, aggregate_id, payload, trace_id)
ORDER BY m.event_id COLLATE "C"
ON CONFLICT (event_id) DO NOTHING
