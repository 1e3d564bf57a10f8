INSERT INTO <table> (event_id, event_type, source, aggregate_id, payload, trace_id)
VALUES (?, ?, ?, ?, ?::jsonb, ?)
ON CONFLICT (event_id) DO NOTHING
