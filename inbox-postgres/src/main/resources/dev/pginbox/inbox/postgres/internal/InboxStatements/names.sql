SELECT inbox_name FROM inbox.inbox_config ORDER BY inbox_name
