SELECT inbox.enable_inbox_ordering(:name, p_aggregate_column => :aggregateColumn, p_sequence_column => :sequenceColumn)
