SELECT inbox.count_waiting(:inbox, :cap, :buckets::integer[])
