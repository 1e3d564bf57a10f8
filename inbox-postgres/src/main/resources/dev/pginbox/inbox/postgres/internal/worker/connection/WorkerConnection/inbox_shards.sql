-- Where the shards of a distributed inbox are now (read on the coordinator after every heartbeat).
SELECT partition_id, shard_table, node_name, node_port FROM inbox.inbox_shards(:inbox)
