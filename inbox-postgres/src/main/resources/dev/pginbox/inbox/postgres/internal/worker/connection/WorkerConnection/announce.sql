SELECT inbox.worker_announce(:inbox, :workerId, :details::jsonb)
