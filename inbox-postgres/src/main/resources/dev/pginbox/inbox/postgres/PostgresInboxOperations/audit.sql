SELECT id, logged_at, role_name, actor, application_name, action, inbox_name, arguments::text AS arguments, rows_affected FROM inbox.inbox_operator_log(:name, :limit, :beforeId)
