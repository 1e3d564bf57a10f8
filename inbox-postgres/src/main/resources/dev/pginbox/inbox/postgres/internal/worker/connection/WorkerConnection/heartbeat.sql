SELECT inbox.worker_heartbeat(:inbox, :workerId, :partitions, :leaseDuration::interval)
