SELECT inbox.enable_inbox_tracking(:name, :table,
    p_id_column => :idColumn, p_processed_at_column => :processedAtColumn,
    p_event_type_column => :eventTypeColumn, p_received_at_column => :receivedAtColumn,
    p_aggregate_column => :aggregateColumn, p_retry_count_column => :retryCountColumn,
    p_error_column => :errorColumn, p_max_retries => :maxRetries,
    p_retention_hours => :retentionHours, p_dlq_retention_hours => :dlqRetentionHours,
    p_payload_column => :payloadColumn, p_notify => :notify, p_arrival_column => :arrivalColumn)
