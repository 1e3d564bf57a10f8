-- What a shard's claim and failures need of the inbox's catalog, read once on the coordinator:
-- the number of shards, the retry settings and the ordering column (NULL: unordered).
SELECT (SELECT count(*) FROM inbox.inbox_shards(c.inbox_name))::integer AS shards,
       c.max_retries, c.backoff_base::text AS backoff_base, c.backoff_max::text AS backoff_max,
       o.sequence_column
FROM inbox.inbox_config c
LEFT JOIN inbox.inbox_ordering_config o USING (inbox_name)
WHERE c.inbox_name = :inbox
