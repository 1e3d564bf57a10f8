SELECT * FROM inbox.inbox_dlq_groups(:name, :limit)
