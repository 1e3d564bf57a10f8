SELECT inbox.purge_inbox(:name, :batchSize)::text
