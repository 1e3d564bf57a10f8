package com.example.imports;

import static org.assertj.core.api.Assertions.assertThat;

import com.example.imports.OrderImport.Order;
import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;

/** The documented {@code sendAll}: the messages exist if and only if the import commits. */
@SpringBootTest(
    classes = ImportApplication.class,
    properties = {"spring.config.name=imports", "inbox.inboxes.orders.max-retries=5"})
class ImportTest {

  private static final TestDatabase DATABASE = TestPostgres.shared().newDatabase("orders_import");

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", DATABASE::jdbcUrl);
    registry.add("spring.datasource.username", DATABASE::user);
    registry.add(
        "spring.datasource.password", () -> DATABASE.password() == null ? "" : DATABASE.password());
  }

  @BeforeAll
  static void table() {
    new JdbcTemplate(DATABASE.dataSource())
        .execute("CREATE TABLE imported (id text PRIMARY KEY, sku text NOT NULL)");
  }

  @Autowired OrderImport orders;
  @Autowired JdbcTemplate jdbc;
  @Autowired TransactionTemplate transactions;

  private int count(String sql) {
    return jdbc.queryForObject(sql, Integer.class);
  }

  @Test
  void a_committed_import_sends_every_order_and_a_rolled_back_one_nothing() {
    orders.importOrders(List.of(new Order("i-1", "MUG-1"), new Order("i-2", "MUG-2")));

    assertThat(count("SELECT count(*) FROM inbox.orders WHERE event_id IN ('i-1', 'i-2')"))
        .isEqualTo(2);
    assertThat(
            jdbc.queryForObject(
                "SELECT payload ->> 'sku' FROM inbox.orders WHERE event_id = 'i-2'", String.class))
        .isEqualTo("MUG-2");

    transactions.executeWithoutResult(
        tx -> {
          orders.importOrders(List.of(new Order("i-3", "MUG-3")));
          tx.setRollbackOnly();
        });

    assertThat(count("SELECT count(*) FROM inbox.orders WHERE event_id = 'i-3'")).isZero();
    assertThat(count("SELECT count(*) FROM imported WHERE id = 'i-3'")).isZero();
  }
}
