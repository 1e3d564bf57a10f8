SELECT inbox.disable_inbox_ordering(:name)
