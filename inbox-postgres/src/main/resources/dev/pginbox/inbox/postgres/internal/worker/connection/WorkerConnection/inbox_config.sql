SELECT notify_channel, managed FROM inbox.inbox_config WHERE inbox_name = :inbox
