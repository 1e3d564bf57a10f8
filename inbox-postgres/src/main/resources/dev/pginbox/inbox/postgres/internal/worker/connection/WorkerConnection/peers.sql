SELECT rank, peers FROM inbox.worker_peers(:inbox, :workerId)
