SELECT inbox.await_held_head(?, ?, ?::integer[])
