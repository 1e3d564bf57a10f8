package dev.pginbox.inbox.postgres.internal.worker.connection;

import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.postgres.spi.NodeDataSources;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.postgresql.ds.common.BaseDataSource;

/**
 * The nodes of a Citus cluster as the worker reaches them: one Jdbi per node, made once from the
 * application's {@link NodeDataSources} or, without one, from a copy of the worker's pgJDBC
 * DataSource pointed at the node. Shared by the processors of a worker.
 */
public final class ShardNodes {

  private final NodeDataSources dataSources;
  private final Map<String, Jdbi> nodes = new ConcurrentHashMap<>();

  private ShardNodes(NodeDataSources dataSources) {
    this.dataSources = dataSources;
  }

  /**
   * The nodes reached through {@code given}, or (null) through copies of {@code coordinator}; an
   * {@link InboxException} when there is neither.
   */
  public static ShardNodes of(NodeDataSources given, DataSource coordinator, String inbox) {
    if (given != null) {
      return new ShardNodes(given);
    }
    if (coordinator instanceof BaseDataSource pgjdbc) {
      return new ShardNodes(NodeDataSources.copiesOf(pgjdbc));
    }
    throw new InboxException(
        "inbox "
            + inbox
            + " is distributed: its worker claims on the worker nodes and needs their"
            + " DataSources; give it PostgresInboxWorker.Builder.nodeDataSources(...) (only a"
            + " pgJDBC DataSource is copied by itself, this is a "
            + coordinator.getClass().getName()
            + ")",
        inbox,
        null);
  }

  /** The Jdbi of the node at {@code host}:{@code port}, made when first asked for. */
  public Jdbi jdbi(String host, int port) {
    return nodes.computeIfAbsent(
        host + ":" + port, node -> WorkerConnection.jdbi(dataSources.forNode(host, port)));
  }
}
