SELECT inbox.enable_inbox_priority(:name, p_priority_column => :column, p_priority_map => CAST(:map AS jsonb))
