SELECT inbox.mark_processed(:name, :eventId)
