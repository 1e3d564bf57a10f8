SELECT inbox.lease_channel(?)
