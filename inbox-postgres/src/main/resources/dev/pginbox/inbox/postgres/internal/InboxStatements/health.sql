SELECT inbox.inbox_health(:name)::text
