SELECT * FROM inbox.inbox_vacuum(:name)
