SELECT inbox.worker_leave(:inbox, :workerId)
