SELECT inbox.await_held_head(:inbox, :maxMillis, :buckets::integer[])
