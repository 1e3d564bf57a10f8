SELECT inbox.worker_leave(?, ?)
