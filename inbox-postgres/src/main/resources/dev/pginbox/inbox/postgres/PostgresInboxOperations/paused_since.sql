SELECT paused_at FROM inbox.inbox_config WHERE inbox_name = :name AND paused_at IS NOT NULL
