SELECT inbox.replay_inbox_messages(:name, p_event_ids => CAST(:eventIds AS text[]))
