SELECT inbox.lease_guard(?, ?, ?::integer[])
