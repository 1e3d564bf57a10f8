SELECT * FROM inbox.inbox_dead_letters(:name, :eventType, :errorGroup, :limit, :afterReceivedAt, :afterEventId)
