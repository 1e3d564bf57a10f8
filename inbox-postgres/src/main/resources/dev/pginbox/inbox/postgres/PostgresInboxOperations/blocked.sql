SELECT * FROM inbox.inbox_blocked_aggregates(:name, :limit)
