SELECT minute, processed FROM inbox.inbox_throughput(:name, :minutes)
