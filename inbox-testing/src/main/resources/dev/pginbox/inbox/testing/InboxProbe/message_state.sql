-- One message of a managed inbox and the inbox's max retries; <table> is a validated inbox name.
SELECT m.processed_at IS NOT NULL AS processed, m.retry_count, m.error, c.max_retries
  FROM inbox.<table> m
  JOIN inbox.inbox_config c ON c.inbox_name = ?
 WHERE m.event_id = ?
