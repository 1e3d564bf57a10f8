SELECT event_id, result FROM inbox.record_failures(:inbox, :eventIds::text[], :errors::text[], :delays::interval[],
                                                  :dead::boolean[])
