package dev.pginbox.inbox.citus;

import java.io.PrintWriter;
import java.net.ConnectException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A worker's way to its database that a test can cut, as a crash or a network partition would:
 * every connection it handed out is aborted (the server rolls back), and no new one is opened until
 * the line is restored. The worker's threads run on but reach nothing: its leases expire.
 */
final class CuttableDataSource implements DataSource {

  /** What the DataSources cut together share. */
  private static final class Line {
    final List<Connection> opened = new CopyOnWriteArrayList<>();
    volatile boolean cut;
  }

  private final DataSource target;
  private final Line line;

  CuttableDataSource(DataSource target) {
    this(target, new Line());
  }

  private CuttableDataSource(DataSource target, Line line) {
    this.target = target;
    this.line = line;
  }

  /** Another database (a worker node) reached over the same line: cut with this one. */
  CuttableDataSource sameLine(DataSource other) {
    return new CuttableDataSource(other, line);
  }

  void cut() throws SQLException {
    line.cut = true;
    for (Connection c : line.opened) {
      c.abort(Runnable::run);
    }
  }

  /** Opens new connections again (the database is back); those cut stay cut. */
  void restore() {
    line.cut = false;
  }

  @Override
  public Connection getConnection() throws SQLException {
    if (line.cut) {
      // As pgJDBC reports a connection that could not be made: an I/O failure, worth retrying.
      throw new SQLException(
          "cut off by the test", "08001", new ConnectException("cut off by the test"));
    }
    Connection c = target.getConnection();
    line.opened.add(c);
    return c;
  }

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    throw new SQLFeatureNotSupportedException();
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
  public <T> T unwrap(Class<T> type) throws SQLException {
    throw new SQLException("not a wrapper");
  }

  @Override
  public boolean isWrapperFor(Class<?> type) {
    return false;
  }
}
