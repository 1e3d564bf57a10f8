-- The actor is a transaction-local setting read by inbox.log_operator_action; the CTE sets it
-- before the action runs.
WITH actor AS (SELECT set_config('inbox.actor', coalesce(:actor, ''), true))
SELECT inbox.replay_inbox_messages(:name, p_event_ids => :eventIds) FROM actor
