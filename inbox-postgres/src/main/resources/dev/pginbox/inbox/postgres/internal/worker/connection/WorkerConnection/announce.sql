SELECT inbox.worker_announce(?, ?, ?::jsonb)
