-- Rows go in sorted by event id (the deadlock protection, see MessageWriter) but take their arrival
-- order (seq) from their place in the caller's list: one identity value per row, the smallest to the
-- first row, whatever order nextval ran in. A duplicate inside the list keeps its first occurrence.
WITH m AS (
    SELECT *
    FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::jsonb[], ?::text[]) WITH ORDINALITY
        AS m (event_id, event_type, source, aggregate_id, payload, trace_id, position)
), identity AS (
    SELECT pg_catalog.pg_get_serial_sequence('<table>', 'seq')::regclass AS sequence
), arrival AS (
    SELECT array_agg(s.seq ORDER BY s.seq) AS seqs
    FROM (SELECT pg_catalog.nextval(i.sequence) AS seq FROM m CROSS JOIN identity i) s
)
INSERT INTO <table> (event_id, event_type, source, aggregate_id, payload, trace_id, seq)
OVERRIDING SYSTEM VALUE
SELECT m.event_id, m.event_type, m.source, m.aggregate_id, m.payload, m.trace_id,
       a.seqs[m.position::integer]
FROM m CROSS JOIN arrival a
ORDER BY m.event_id COLLATE "C", m.position
ON CONFLICT (event_id) DO NOTHING
