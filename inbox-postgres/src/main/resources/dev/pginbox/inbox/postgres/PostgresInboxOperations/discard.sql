WITH actor AS (SELECT set_config('inbox.actor', coalesce(:actor, ''), true))
SELECT inbox.discard_dead_letters(:name, :eventIds, :eventType, :errorGroup) FROM actor
