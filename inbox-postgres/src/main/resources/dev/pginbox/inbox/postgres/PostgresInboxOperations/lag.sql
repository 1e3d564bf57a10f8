SELECT * FROM inbox.inbox_partition_lag(:name)
