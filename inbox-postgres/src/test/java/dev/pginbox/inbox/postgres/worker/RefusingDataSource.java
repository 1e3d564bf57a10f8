package dev.pginbox.inbox.postgres.worker;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A data source that can refuse: while {@link #refuse} is set it connects to a port nobody listens
 * on (a real refusal from pgJDBC). {@link #sever()} also drops every connection it handed out: to
 * the database, the worker using it is gone as after a crash or a network partition, while its
 * threads go on trying.
 */
final class RefusingDataSource implements DataSource {

  final AtomicBoolean refuse;
  private final DataSource delegate;
  private final PGSimpleDataSource wrongPort = new PGSimpleDataSource();
  private final Set<Connection> handedOut = ConcurrentHashMap.newKeySet();

  RefusingDataSource(DataSource delegate, boolean refuse) {
    this.delegate = delegate;
    this.refuse = new AtomicBoolean(refuse);
    wrongPort.setServerNames(new String[] {"127.0.0.1"});
    wrongPort.setPortNumbers(new int[] {1});
    wrongPort.setDatabaseName("nothing");
    wrongPort.setUser("nobody");
  }

  /**
   * Refuses from now on and closes the sockets of every connection handed out (the server rolls
   * back).
   */
  void sever() throws SQLException {
    refuse.set(true);
    for (Connection c : handedOut) {
      c.abort(Runnable::run);
    }
  }

  @Override
  public Connection getConnection() throws SQLException {
    if (refuse.get()) {
      return wrongPort.getConnection();
    }
    Connection c = delegate.getConnection();
    handedOut.removeIf(
        old -> {
          try {
            return old.isClosed();
          } catch (SQLException e) {
            return true;
          }
        });
    handedOut.add(c);
    if (refuse.get()) {
      // Severed while connecting: sever() may have looked at handedOut before the add above.
      c.abort(Runnable::run);
      throw new SQLException("severed", "08001");
    }
    return c;
  }

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    return getConnection();
  }

  @Override
  public PrintWriter getLogWriter() {
    return null;
  }

  @Override
  public void setLogWriter(PrintWriter out) {}

  @Override
  public void setLoginTimeout(int seconds) {}

  @Override
  public int getLoginTimeout() {
    return 0;
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    throw new SQLException("not a wrapper");
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) {
    return false;
  }
}
