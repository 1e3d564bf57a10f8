SELECT inbox.inbox_is_my_partition(:name, :aggregateId, :workerId, :totalWorkers)
