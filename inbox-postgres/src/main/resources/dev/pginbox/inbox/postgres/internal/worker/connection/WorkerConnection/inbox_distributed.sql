-- Whether the inbox is a Citus distributed table: its worker then claims shard by shard.
SELECT inbox.is_distributed(c) FROM inbox.inbox_config c WHERE c.inbox_name = :inbox
