WITH actor AS (SELECT set_config('inbox.actor', coalesce(:actor, ''), true))
SELECT inbox.purge_inbox(:name, :batchSize)::text FROM actor
