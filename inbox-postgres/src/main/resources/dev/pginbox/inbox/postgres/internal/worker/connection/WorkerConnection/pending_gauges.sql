SELECT depth, oldest_age_seconds FROM inbox.pending_gauges(:inbox)
