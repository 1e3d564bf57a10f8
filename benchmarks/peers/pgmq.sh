# Sourced by the peer scripts. pgmq_install SQL SHAREDIR: installs pgmq's extension script SQL
# (pgmq-extension/sql/pgmq.sql of a pgmq release; no package registry ships it) as version 'peers'
# of the extension pgmq into SHAREDIR/extension, so `CREATE EXTENSION pgmq VERSION 'peers'` loads
# it. pgmq's script expects the schema its control file makes and adds each queue's tables to the
# extension, so it cannot be loaded as plain SQL. A pgmq.control already there (a real pgmq
# installation, another default_version) is left alone. Prints why it could not, and returns 1.
pgmq_install() {
  local sql=$1 sharedir=$2
  if [ ! -r "$sql" ]; then
    echo "PGMQ_SQL=$sql is not a readable file"
    return 1
  fi
  if [ ! -w "$sharedir/extension" ]; then
    echo "PGMQ_SQL is installed into $sharedir/extension, which this user cannot write (run as root)"
    return 1
  fi
  cp "$sql" "$sharedir/extension/pgmq--peers.sql"
  [ -f "$sharedir/extension/pgmq.control" ] \
    || printf "comment = 'pgmq, from PGMQ_SQL (benchmarks/peers)'\nschema = 'pgmq'\nrelocatable = false\n" \
      >"$sharedir/extension/pgmq.control"
}
