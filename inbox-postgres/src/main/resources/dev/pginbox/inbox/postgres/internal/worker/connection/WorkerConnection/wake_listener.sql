SELECT pg_notify(?, '')
