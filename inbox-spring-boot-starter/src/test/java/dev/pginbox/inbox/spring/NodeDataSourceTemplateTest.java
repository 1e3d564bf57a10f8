package dev.pginbox.inbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

/** How the starter reaches the worker nodes with the application's settings, without a database. */
class NodeDataSourceTemplateTest {

  @Test
  void a_hikari_pool_by_url_is_copied_with_the_nodes_host_and_port() {
    try (HikariDataSource pool = new HikariDataSource()) {
      pool.setJdbcUrl("jdbc:postgresql://coordinator:5432/shop?sslmode=disable");
      pool.setUsername("inbox_worker");
      pool.setPassword("s3cret");
      pool.addDataSourceProperty("ApplicationName", "orders");
      pool.addDataSourceProperty("notAPgjdbcProperty", "ignored");

      PGSimpleDataSource node = node(pool);

      assertThat(node.getServerNames()).containsExactly("node-2");
      assertThat(node.getPortNumbers()).containsExactly(6432);
      assertThat(node.getDatabaseName()).isEqualTo("shop");
      assertThat(node.getUser()).isEqualTo("inbox_worker");
      assertThat(node.getPassword()).isEqualTo("s3cret");
      assertThat(node.getApplicationName()).isEqualTo("orders");
      assertThat(node.getSslMode()).isEqualTo("disable");
    }
  }

  @Test
  void a_pgjdbc_data_source_behind_a_wrapper_is_copied() {
    PGSimpleDataSource app = new PGSimpleDataSource();
    app.setURL("jdbc:postgresql://coordinator:5432/shop?user=inbox_worker");

    PGSimpleDataSource node = node(new DelegatingDataSource(app));

    assertThat(node.getServerNames()).containsExactly("node-2");
    assertThat(node.getDatabaseName()).isEqualTo("shop");
    assertThat(node.getUser()).isEqualTo("inbox_worker");
  }

  @Test
  void another_data_source_gives_nothing() {
    try (HikariDataSource mysql = new HikariDataSource()) {
      mysql.setJdbcUrl("jdbc:mysql://db/shop");
      assertThat(NodeDataSourceTemplate.nodesOf(mysql)).isEmpty();
    }
    assertThat(NodeDataSourceTemplate.nodesOf(new SimpleDriverDataSource())).isEmpty();
  }

  private static PGSimpleDataSource node(javax.sql.DataSource app) {
    return (PGSimpleDataSource)
        NodeDataSourceTemplate.nodesOf(app).orElseThrow().forNode("node-2", 6432);
  }
}
