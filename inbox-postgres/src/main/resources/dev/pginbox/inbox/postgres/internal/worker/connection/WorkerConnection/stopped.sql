SELECT inbox.worker_stopped(:inbox, :workerId)
