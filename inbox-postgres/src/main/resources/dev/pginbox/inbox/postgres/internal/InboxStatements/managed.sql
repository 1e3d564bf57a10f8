SELECT managed FROM inbox.inbox_config WHERE inbox_name = :name
