-- Whether a session waits for a lock this transaction holds: a batch claimed ahead that waits for
-- its handler turn gives its messages back when it is in someone's way (BatchRunner).
SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_locks l
               WHERE NOT l.granted
                 AND pg_catalog.pg_backend_pid() = ANY (pg_catalog.pg_blocking_pids(l.pid)))
