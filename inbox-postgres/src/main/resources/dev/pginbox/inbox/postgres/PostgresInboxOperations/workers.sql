SELECT * FROM inbox.inbox_workers(:name)
