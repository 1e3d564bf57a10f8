SELECT inbox.worker_stopped(?, ?)
