SELECT pg_notify(:channel, '')
