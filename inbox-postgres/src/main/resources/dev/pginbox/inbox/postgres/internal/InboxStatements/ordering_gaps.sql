SELECT aggregate_id, issue, event_id, sequence, previous_sequence, detail FROM inbox.inbox_ordering_gaps(:name)
