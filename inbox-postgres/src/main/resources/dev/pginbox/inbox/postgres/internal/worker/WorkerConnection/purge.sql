-- One retention step, or NULL when another worker is purging this inbox right now (one elected
-- sweeper per inbox through a row lock on its catalog row, held to the end of the transaction:
-- works through PgBouncer transaction pooling, and roles without privileges cannot hold it).
SELECT inbox.try_purge_inbox(?, ?)::text
