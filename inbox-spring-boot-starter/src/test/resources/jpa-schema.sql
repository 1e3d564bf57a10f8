CREATE TABLE IF NOT EXISTS jdbc_log (event_id text PRIMARY KEY);
