-- The batch goes through the inbox's send function (inbox.send_<name>, sql/inbox/010_roles.sql):
-- one INSERT in event id order whose arrival order (seq) follows the arrays. The function sets seq
-- as the inbox's owner, a right producers do not have; they are granted EXECUTE on it instead.
SELECT <function>(?::text[], ?::text[], ?::text[], ?::text[], ?::jsonb[], ?::text[])
