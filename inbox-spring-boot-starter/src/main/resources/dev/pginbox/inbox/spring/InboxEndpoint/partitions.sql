-- The automatic partition mode's leases of one inbox, with each owner's last heartbeat.
SELECT l.partition_id, l.owner_id, l.lease_expires_at, l.lease_expires_at > now() AS live,
       w.heartbeat_at
  FROM inbox.inbox_partition_leases l
  LEFT JOIN inbox.inbox_workers w ON w.inbox_name = l.inbox_name AND w.worker_id = l.owner_id
 WHERE l.inbox_name = :inbox
 ORDER BY l.partition_id
