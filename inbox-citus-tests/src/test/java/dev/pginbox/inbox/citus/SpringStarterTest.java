package dev.pginbox.inbox.citus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.postgres.spi.NodeDataSources;
import dev.pginbox.inbox.spring.InboxListener;
import dev.pginbox.inbox.spring.InboxTemplate;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Transactional;

/**
 * The Spring Boot starter on a distributed inbox: a real application context on the coordinator
 * (Boot's HikariCP DataSource and its JDBC transaction manager) whose handler writes with {@code
 * JdbcTemplate}, in a {@code @Transactional} method, to an application table co-located with the
 * inbox. Every message is handled once, its row written once, on the worker node of its shard; a
 * handler that fails after writing leaves no row of that attempt, and the message is retried. The
 * nodes are reached with copies of the pool's settings, or through the application's own {@link
 * NodeDataSources} bean.
 */
class SpringStarterTest {

  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final String LEDGER_INBOX = "springledger";
  private static final String NODES_INBOX = "springnodes";

  /**
   * A setting the pool's driver properties give every connection (the worker sets its own name).
   */
  private static final String MARKER = "inboxtest.marker";

  @Test
  void a_listener_writes_once_per_message_in_the_nodes_transaction_and_a_failure_rolls_back()
      throws Exception {
    CitusCluster cluster = SharedCluster.get();
    String ledger = distributedInboxWithLedger(cluster, LEDGER_INBOX);
    try (ConfigurableApplicationContext context =
        start(cluster, LedgerApplication.class, LEDGER_INBOX)) {
      assertThat(context.getBean(DataSource.class)).isInstanceOf(HikariDataSource.class);
      assertThat(context.getBean(PlatformTransactionManager.class))
          .isInstanceOf(DataSourceTransactionManager.class);
      assertThat(AopUtils.isAopProxy(context.getBean(LedgerWriter.class)))
          .as("the @Transactional writer is proxied")
          .isTrue();
      int sent = send(context, LEDGER_INBOX, 12);
      awaitProcessed(cluster, LEDGER_INBOX, sent);

      String url = cluster.coordinatorUrl();
      assertThat(count(url, "SELECT count(*) FROM " + ledger)).as("rows").isEqualTo(sent);
      assertThat(count(url, "SELECT count(DISTINCT (aggregate_id, event_id)) FROM " + ledger))
          .as("messages with a row")
          .isEqualTo(sent);
      assertThat(
              count(
                  url,
                  "SELECT count(*) FROM "
                      + ledger
                      + " WHERE event_id LIKE 'fail-%' AND attempt = 2"))
          .as("failed once: the first attempt's row rolled back, the retry's kept")
          .isEqualTo(sent / 3);
      assertThat(
              count(
                  url,
                  "SELECT count(*) FROM inbox."
                      + LEDGER_INBOX
                      + " WHERE event_id LIKE 'fail-%' AND retry_count = 1"))
          .as("failed attempts recorded")
          .isEqualTo(sent / 3);
      long coordinatorPort = count(url, "SELECT inet_server_port()");
      assertThat(
              count(
                  url, "SELECT count(*) FROM " + ledger + " WHERE node_port = " + coordinatorPort))
          .as("rows written through the coordinator")
          .isZero();
      assertThat(
              count(
                  url,
                  "SELECT count(*) FROM "
                      + ledger
                      + " WHERE marker IS DISTINCT FROM 'from-the-pool'"))
          .as("rows written without the pool's connection properties")
          .isZero();
    }
  }

  @Test
  void the_applications_node_data_sources_bean_is_used() throws Exception {
    CitusCluster cluster = SharedCluster.get();
    String ledger = distributedInboxWithLedger(cluster, NODES_INBOX);
    try (ConfigurableApplicationContext context =
        start(cluster, NodesBeanApplication.class, NODES_INBOX)) {
      int sent = send(context, NODES_INBOX, 3);
      awaitProcessed(cluster, NODES_INBOX, sent);
      assertThat(count(cluster.coordinatorUrl(), "SELECT count(*) FROM " + ledger)).isEqualTo(sent);
      Set<Integer> nodePorts = new HashSet<>();
      cluster.workerNodes().forEach(node -> nodePorts.add(node.port()));
      assertThat(context.getBean(RecordingNodes.class).asked).isNotEmpty();
      assertThat(nodePorts).containsAll(context.getBean(RecordingNodes.class).asked);
    }
  }

  /**
   * A distributed inbox and its application table {@code app.<inbox>_ledger} (a row per handling:
   * the attempt, and the server port and marker setting of the connection that wrote it).
   */
  private static String distributedInboxWithLedger(CitusCluster cluster, String inbox)
      throws SQLException {
    String ledger = "app." + inbox + "_ledger";
    CitusCluster.sql(
        cluster.coordinatorUrl(),
        "CREATE TABLE "
            + ledger
            + " (aggregate_id text NOT NULL, event_id text NOT NULL, attempt integer NOT NULL,"
            + " node_port integer NOT NULL, marker text)",
        "SELECT create_distributed_table('" + ledger + "', 'aggregate_id')",
        "SELECT inbox.create_inbox('"
            + inbox
            + "', p_backoff_base => interval '10 milliseconds',"
            + " p_backoff_max => interval '50 milliseconds', p_max_retries => 5)",
        "SELECT inbox.distribute_inbox('" + inbox + "', colocate_with => '" + ledger + "')");
    return ledger;
  }

  /**
   * The application on the coordinator, consuming {@code inbox}: Boot's DataSource (HikariCP), the
   * user apart from the URL, a driver property of the pool's.
   */
  private static ConfigurableApplicationContext start(
      CitusCluster cluster, Class<?> application, String inbox) {
    String url = cluster.coordinatorUrl().replace("?user=postgres", "");
    return new SpringApplicationBuilder(application)
        .web(WebApplicationType.NONE)
        .properties(
            "spring.datasource.url=" + url,
            "spring.datasource.username=postgres",
            "spring.datasource.hikari.data-source-properties.options=-c "
                + MARKER
                + "=from-the-pool",
            "inbox.install=false",
            "inbox.inboxes." + inbox + ".create=false",
            "inbox.inboxes." + inbox + ".worker.poll-interval=50ms",
            "inbox.inboxes." + inbox + ".worker.concurrency=2",
            "inbox.inboxes." + inbox + ".worker.batch-size=5")
        .run();
  }

  /** Sends {@code count} messages, one aggregate each; every third fails once after writing. */
  private static int send(ConfigurableApplicationContext context, String inbox, int count) {
    List<NewMessage> messages = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String eventId = (i % 3 == 0 ? "fail-" : "ok-") + i;
      messages.add(new NewMessage(eventId, "ledger.entry", null, "agg-" + i, "{}", null));
    }
    assertThat(context.getBean(InboxTemplate.class).sendAll(inbox, messages)).isEqualTo(count);
    return count;
  }

  private static void awaitProcessed(CitusCluster cluster, String inbox, int sent) {
    await()
        .atMost(WAIT)
        .until(
            () ->
                count(
                        cluster.coordinatorUrl(),
                        "SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NOT NULL")
                    == sent);
  }

  private static long count(String url, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * Writes the message's row with the application's {@code JdbcTemplate}, then fails the first
   * attempt of a message whose event id starts with {@code fail-}.
   */
  static Outcome writeLedger(JdbcTemplate jdbc, String inbox, InboxMessage message) {
    int attempt = message.retryCount() + 1;
    jdbc.update(
        "INSERT INTO app."
            + inbox
            + "_ledger VALUES (?, ?, ?, inet_server_port(), current_setting('"
            + MARKER
            + "', true))",
        message.aggregateId(),
        message.eventId(),
        attempt);
    if (message.eventId().startsWith("fail-") && attempt == 1) {
      throw new IllegalStateException("fails after writing, on its first attempt");
    }
    return Outcome.processed();
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class LedgerApplication {
    @Bean
    LedgerWriter ledgerWriter(JdbcTemplate jdbc) {
      return new LedgerWriter(jdbc);
    }

    @Bean
    Ledger ledger(LedgerWriter writer) {
      return new Ledger(writer);
    }
  }

  /** Writes through a {@code @Transactional} method, which joins the message's transaction. */
  static class LedgerWriter {
    private final JdbcTemplate jdbc;

    LedgerWriter(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @Transactional
    public Outcome write(InboxMessage message) {
      return writeLedger(jdbc, LEDGER_INBOX, message);
    }
  }

  /** The {@code @InboxListener} of {@link LedgerApplication}. */
  static class Ledger {
    private final LedgerWriter writer;

    Ledger(LedgerWriter writer) {
      this.writer = writer;
    }

    @InboxListener(inbox = LEDGER_INBOX)
    public Outcome handle(InboxMessage message) {
      return writer.write(message);
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class NodesBeanApplication {
    @Bean
    RecordingNodes nodeDataSources() {
      return new RecordingNodes();
    }

    @Bean
    @Qualifier(NODES_INBOX)
    MessageHandler nodesLedger(JdbcTemplate jdbc) {
      return (message, tx) -> writeLedger(jdbc, NODES_INBOX, message);
    }
  }

  /** The application's own way to the nodes, recording the ports it was asked for. */
  static class RecordingNodes implements NodeDataSources {
    final Set<Integer> asked = ConcurrentHashMap.newKeySet();

    @Override
    public DataSource forNode(String host, int port) {
      asked.add(port);
      return SharedCluster.dataSource(CitusCluster.url(host, port));
    }
  }
}
