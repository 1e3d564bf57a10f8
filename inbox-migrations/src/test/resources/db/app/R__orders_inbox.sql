-- An application's own migration creating an inbox (docs/spring-boot.md, "Schema migrations"):
-- repeatable, so Flyway runs it after the inbox SQL API, and guarded, so a re-run is harmless.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM inbox.inbox_config WHERE inbox_name = 'orders') THEN
    PERFORM inbox.create_inbox('orders', p_max_retries => 5);
  END IF;
END
$$;
