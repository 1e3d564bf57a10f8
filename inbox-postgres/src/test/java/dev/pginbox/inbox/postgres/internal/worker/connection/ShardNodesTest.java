package dev.pginbox.inbox.postgres.internal.worker.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.postgres.spi.NodeDataSources;
import java.io.PrintWriter;
import java.sql.Connection;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** How a worker of a distributed inbox reaches a node by default, without a database. */
class ShardNodesTest {

  @Test
  void a_pgjdbc_data_source_is_copied_with_the_nodes_host_and_port() {
    PGSimpleDataSource coordinator = new PGSimpleDataSource();
    coordinator.setURL(
        "jdbc:postgresql://coordinator:5432/app?ApplicationName=shop&sslmode=disable");
    coordinator.setUser("inbox_worker");
    coordinator.setPassword("s3cret");

    PGSimpleDataSource node =
        (PGSimpleDataSource) NodeDataSources.copiesOf(coordinator).forNode("node-2", 6432);

    assertThat(node.getServerNames()).containsExactly("node-2");
    assertThat(node.getPortNumbers()).containsExactly(6432);
    assertThat(node.getDatabaseName()).isEqualTo("app");
    assertThat(node.getUser()).isEqualTo("inbox_worker");
    assertThat(node.getPassword()).isEqualTo("s3cret");
    assertThat(node.getApplicationName()).isEqualTo("shop");
    assertThat(node.getSslMode()).isEqualTo("disable");
    assertThat(coordinator.getServerNames()).containsExactly("coordinator");
  }

  @Test
  void another_data_source_without_a_node_function_is_refused_by_name_without_its_secrets() {
    DataSource pool = new OtherDataSource();
    assertThatThrownBy(() -> ShardNodes.of(null, pool, "orders"))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("nodeDataSources")
        .hasMessageContaining(OtherDataSource.class.getName());
    assertThat(ShardNodes.of((host, port) -> pool, pool, "orders")).isNotNull();
  }

  /** A DataSource that is not pgJDBC's (a pool, say); never asked for a connection here. */
  private static final class OtherDataSource implements DataSource {
    @Override
    public Connection getConnection() {
      throw new UnsupportedOperationException();
    }

    @Override
    public Connection getConnection(String user, String password) {
      throw new UnsupportedOperationException();
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
    public Logger getParentLogger() {
      return Logger.getGlobal();
    }

    @Override
    public <T> T unwrap(Class<T> type) {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
      return false;
    }
  }
}
