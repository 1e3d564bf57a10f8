SELECT inbox.worker_heartbeat(?, ?, ?, ?::interval)
