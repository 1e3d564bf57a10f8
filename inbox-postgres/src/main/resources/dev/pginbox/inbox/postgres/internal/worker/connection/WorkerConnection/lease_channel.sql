SELECT inbox.lease_channel(:inbox)
