SELECT event_id, result FROM inbox.record_failures(?, ?::text[], ?::text[], ?::interval[], ?::boolean[])
