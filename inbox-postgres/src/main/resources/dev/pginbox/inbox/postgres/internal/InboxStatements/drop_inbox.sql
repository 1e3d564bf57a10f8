SELECT inbox.drop_inbox(:name, p_cascade => :cascade)
