WITH actor AS (SELECT set_config('inbox.actor', coalesce(:actor, ''), true))
SELECT inbox.replay_dlq_group(:name, :eventType, :errorGroup) FROM actor
