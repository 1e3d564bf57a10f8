SELECT minute, processed, failed FROM inbox.inbox_throughput(:name, :minutes)
