SELECT inbox.mark_failed(:name, :eventId, :error)
