SELECT inbox.count_dead_letters(:name, :eventIds, :eventType, :errorGroup)
