-- One message goes through the inbox's send function too (insert_batch.sql), as a batch of one:
-- the function knows the inbox's key, event_id or (aggregate_id, event_id) once the inbox is
-- distributed on Citus (inbox.message_key), so a duplicate is ignored on both. A bare
-- ON CONFLICT DO NOTHING would fit both keys as well, but would also hide a violation of another
-- unique index, which a send reports as an error.
SELECT <function>(ARRAY[?]::text[], ARRAY[?]::text[], ARRAY[?]::text[], ARRAY[?]::text[],
                  ARRAY[?::jsonb], ARRAY[?]::text[])
