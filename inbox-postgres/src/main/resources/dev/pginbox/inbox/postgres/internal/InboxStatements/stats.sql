SELECT event_type, pending, processed, dead, total FROM inbox.<stats_view> ORDER BY event_type NULLS FIRST
