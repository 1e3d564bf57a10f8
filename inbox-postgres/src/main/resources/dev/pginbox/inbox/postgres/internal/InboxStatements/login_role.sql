SELECT session_user::text
