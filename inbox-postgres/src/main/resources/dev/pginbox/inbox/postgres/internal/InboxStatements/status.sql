SELECT inbox.inbox_status(:name)::text
