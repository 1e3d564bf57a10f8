SELECT EXISTS (SELECT 1 FROM inbox.inbox_ordering_config WHERE inbox_name = :inbox)
