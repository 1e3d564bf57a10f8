-- Consuming: claim_<name>(limit, buckets) is generated per inbox (003_create_inbox.sql);
-- these functions record the outcome of a message for consumers in any language.

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

-- Marks one message processed. Call it in the transaction that did the work.
-- Returns false when the message does not exist or was already processed.
CREATE OR REPLACE FUNCTION inbox.mark_processed(p_inbox text, p_event_id text)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    v_count integer;
BEGIN
    EXECUTE format('UPDATE %s SET %I = now() WHERE %I = $1::%s AND %I IS NULL',
        inbox.inbox_table(c), c.processed_at_column, c.id_column, inbox.id_type(c), c.processed_at_column)
        USING p_event_id;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    RETURN v_count > 0;
END;
$$;

-- The error text kept on a failed message: at most 4,000 characters, so a handler that fails with
-- a huge message (a whole payload, a stack trace) cannot bloat every row it touches.
CREATE OR REPLACE FUNCTION inbox.capped_error(p_error text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT left(p_error, 4000) $$;

-- The delay before the next attempt after a message's n-th failure (n >= 1):
-- exponential (base * 2^(n-1)) capped at max, with "equal jitter": a uniformly random
-- point in the upper half of that delay, so retries of a burst spread out.
CREATE OR REPLACE FUNCTION inbox.retry_delay(p_base interval, p_max interval, p_failures integer)
RETURNS interval
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT d * (0.5 + random() * 0.5)
    FROM (SELECT least(p_max, p_base * power(2, least(greatest(p_failures, 1) - 1, 30))) AS d) AS capped
$$;

-- Records a failed attempt: retry_count + 1, the error text, and the next attempt after a
-- backoff (p_retry_delay, or the inbox's exponential backoff with jitter). Once retry_count
-- reaches max_retries the message is a dead letter (visible in <name>_dlq) and is not claimed
-- again until replayed. It applies to a pending message and to one claimed by this transaction
-- (claim_<name> sets processed_at = now(), the transaction's start time); a message processed
-- by another, committed transaction is left alone. Returns 'retry', 'dead', or NULL when
-- nothing was changed. A tracked table keeps what it has no column for in the inbox's side table
-- (inbox.tracked_record_failure).
CREATE OR REPLACE FUNCTION inbox.mark_failed(p_inbox text, p_event_id text, p_error text,
                                             p_retry_delay interval DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    v_retries integer;
BEGIN
    IF NOT c.managed THEN
        RETURN inbox.tracked_record_failure(c, p_event_id, p_error, p_retry_delay, false, now());
    END IF;
    EXECUTE format($u$UPDATE %s SET processed_at = NULL, retry_count = retry_count + 1, error = inbox.capped_error($2),
            next_attempt_at = now() + coalesce($3, inbox.retry_delay($4, $5, retry_count + 1))
        WHERE event_id = $1 AND retry_count < $6
          AND (processed_at IS NULL OR processed_at = now())
        RETURNING retry_count$u$, inbox.inbox_table(c))
        INTO v_retries
        USING p_event_id, p_error, p_retry_delay, c.backoff_base, c.backoff_max, c.max_retries;
    IF v_retries IS NULL THEN
        RETURN NULL;
    END IF;
    RETURN CASE WHEN v_retries >= c.max_retries THEN 'dead' ELSE 'retry' END;
END;
$$;
