INSERT INTO <table> (event_id, event_type, source, aggregate_id, payload, trace_id)
SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::jsonb[], ?::text[])
ON CONFLICT (event_id) DO NOTHING
