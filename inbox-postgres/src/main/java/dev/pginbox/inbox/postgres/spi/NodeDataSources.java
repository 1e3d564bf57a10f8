package dev.pginbox.inbox.postgres.spi;

import java.util.Objects;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.postgresql.ds.common.BaseDataSource;

/**
 * How a worker of a distributed (Citus) inbox reaches the node that holds a shard: it claims each
 * shard on that node, in a transaction the handler's writes and the commit share. Called once per
 * node, with the node's host and port as the coordinator's {@code inbox.inbox_shards} names them;
 * the DataSource it returns is kept for the worker's life.
 *
 * <p>Without one the worker copies its own DataSource when it is pgJDBC's ({@code
 * PGSimpleDataSource} and the other {@code BaseDataSource}s: same database, user, password and
 * settings, the node's host and port; {@link #copiesOf}), and refuses to start on a distributed
 * inbox otherwise (a pool, for example: give it a function that builds the node's pool).
 */
@FunctionalInterface
public interface NodeDataSources {

  /** The DataSource of the node at {@code host}:{@code port}. */
  DataSource forNode(String host, int port);

  /**
   * Copies of {@code template} at each node: the same database, user, password and settings, the
   * node's host and port. {@code template} is read at every call and never changed.
   */
  static NodeDataSources copiesOf(BaseDataSource template) {
    Objects.requireNonNull(template, "template");
    return (host, port) -> {
      PGSimpleDataSource copy = new PGSimpleDataSource();
      copy.setURL(template.getURL());
      copy.setUser(template.getUser());
      copy.setPassword(template.getPassword());
      copy.setServerNames(new String[] {host});
      copy.setPortNumbers(new int[] {port});
      return copy;
    };
  }
}
