SELECT inbox.replay_inbox_messages(:name, p_event_type => :eventType)
