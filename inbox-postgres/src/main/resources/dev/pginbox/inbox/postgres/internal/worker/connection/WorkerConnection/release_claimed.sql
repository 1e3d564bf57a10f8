-- Gives the batch's messages the handler did not get back to the queue uncharged (see
-- HandlerCalls: an aggregate's later messages after one of them failed).
SELECT inbox.release_claimed(:inbox, :eventIds::text[])
