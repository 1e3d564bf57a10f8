CREATE TABLE IF NOT EXISTS stock (sku text PRIMARY KEY, quantity integer NOT NULL);
CREATE TABLE IF NOT EXISTS audit_log (event_id text PRIMARY KEY, event_type text);
CREATE TABLE IF NOT EXISTS notes (event_id text PRIMARY KEY, note text NOT NULL);
CREATE TABLE IF NOT EXISTS pings (event_id text PRIMARY KEY);
