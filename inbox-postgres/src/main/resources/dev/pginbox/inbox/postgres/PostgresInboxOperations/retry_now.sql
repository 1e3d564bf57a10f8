WITH actor AS (SELECT set_config('inbox.actor', coalesce(:actor, ''), true))
SELECT inbox.retry_now(:name, :eventIds) FROM actor
