WITH actor AS (SELECT set_config('inbox.actor', coalesce(:actor, ''), true))
SELECT inbox.replay_inbox_messages(:name, p_event_type => :eventType) FROM actor
