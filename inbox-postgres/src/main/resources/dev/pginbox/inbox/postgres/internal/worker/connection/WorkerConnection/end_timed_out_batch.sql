-- Ends a timed-out batch in its own transaction (rows still locked): the failures recorded, the
-- untouched messages given back without a failed attempt, commit. Sent as one unit; the runtime
-- puts "ROLLBACK TO SAVEPOINT" in front when the running part had one.
SELECT event_id, result FROM inbox.record_failures(:inbox, :eventIds::text[], :errors::text[], :delays::interval[],
                                                  :dead::boolean[]);
SELECT inbox.release_claimed(:inbox, :giveBack::text[]);
COMMIT
