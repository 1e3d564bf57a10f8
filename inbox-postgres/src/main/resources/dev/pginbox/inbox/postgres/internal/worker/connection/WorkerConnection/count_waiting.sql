SELECT inbox.count_waiting(?, ?, ?::integer[])
