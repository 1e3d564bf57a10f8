package dev.pginbox.inbox.postgres;

import dev.pginbox.inbox.InboxManager;
import dev.pginbox.inbox.InboxNames;
import dev.pginbox.inbox.InboxNotFoundException;
import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.InvalidInboxArgumentException;
import dev.pginbox.inbox.TrackingSpec;
import dev.pginbox.inbox.operations.OperatorLogEntry;
import dev.pginbox.inbox.postgres.internal.InboxStatements;
import dev.pginbox.inbox.postgres.internal.JdbiCalls;
import dev.pginbox.inbox.postgres.internal.worker.connection.StartupCheck;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link InboxManager} on PostgreSQL. Build it from a (pooled) {@link DataSource} or a {@link
 * Jdbi}; every method calls a function of the SQL API in schema {@code inbox}.
 */
public final class PostgresInboxManager implements InboxManager {

  private static final Logger LOG = LoggerFactory.getLogger(PostgresInboxManager.class);

  private final Jdbi jdbi;

  private PostgresInboxManager(Jdbi jdbi) {
    this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
  }

  public static PostgresInboxManager create(DataSource dataSource) {
    return new PostgresInboxManager(Jdbi.create(Objects.requireNonNull(dataSource, "dataSource")));
  }

  public static PostgresInboxManager create(Jdbi jdbi) {
    return new PostgresInboxManager(jdbi);
  }

  /** The Jdbi this manager runs on. */
  public Jdbi jdbi() {
    return jdbi;
  }

  @Override
  public void install() {
    call(
        "install the inbox SQL API",
        null,
        h -> {
          SqlScripts.install(h, SqlScripts.INBOX_INSTALL_SCRIPT);
          return null;
        });
    LOG.info("installed the inbox SQL API (schema inbox)");
  }

  @Override
  public PostgresInbox createInbox(String name) {
    return createInbox(name, InboxOptions.defaults());
  }

  @Override
  public PostgresInbox createInbox(String name, InboxOptions o) {
    InboxNames.requireValid(name);
    Objects.requireNonNull(o, "options");
    call(
        "create inbox " + name,
        name,
        h ->
            InboxStatements.bindOptions(h.createQuery(InboxStatements.sql("create_inbox")), name, o)
                .bind("channel", o.channel())
                .mapTo(String.class)
                .one());
    LOG.info("created inbox {} ({})", name, o);
    return new PostgresInbox(jdbi, name, true);
  }

  @Override
  public InboxOptions options(String name) {
    InboxNames.requireValid(name);
    return call(
            "read options of inbox " + name,
            name,
            h ->
                h.createQuery(InboxStatements.sql("inbox_options"))
                    .bind("name", name)
                    .map((rs, ctx) -> InboxStatements.options(rs))
                    .findOne())
        .orElseThrow(
            () -> new InboxNotFoundException("inbox '" + name + "' does not exist", name, null));
  }

  @Override
  public List<String> alterInbox(String name, InboxOptions o) {
    InboxNames.requireValid(name);
    Objects.requireNonNull(o, "options");
    List<String> changed =
        call(
            "alter inbox " + name,
            name,
            h ->
                InboxStatements.bindOptions(
                        h.createQuery(InboxStatements.sql("alter_inbox")), name, o)
                    .mapTo(String.class)
                    .list());
    if (!changed.isEmpty()) {
      LOG.info("altered inbox {}: {} ({})", name, changed, o);
    }
    return changed;
  }

  @Override
  public void dropInbox(String name, boolean cascade) {
    InboxNames.requireValid(name);
    call(
        "drop inbox " + name,
        name,
        h ->
            h.createQuery(InboxStatements.sql("drop_inbox"))
                .bind("name", name)
                .bind("cascade", cascade)
                .mapTo(String.class)
                .one());
    LOG.info("dropped inbox {} (cascade = {}; a tracked table is never dropped)", name, cascade);
  }

  @Override
  public void enableOrdering(String name, String aggregateColumn, String sequenceColumn) {
    InboxNames.requireValid(name);
    call(
        "enable ordering on inbox " + name,
        name,
        h ->
            h.createQuery(InboxStatements.sql("enable_ordering"))
                .bind("name", name)
                .bind("aggregateColumn", aggregateColumn)
                .bind("sequenceColumn", sequenceColumn)
                .mapTo(String.class)
                .one());
  }

  @Override
  public void disableOrdering(String name) {
    InboxNames.requireValid(name);
    call(
        "disable ordering on inbox " + name,
        name,
        h ->
            h.createQuery(InboxStatements.sql("disable_ordering"))
                .bind("name", name)
                .mapTo(String.class)
                .one());
  }

  @Override
  public void enablePriority(String name, String column, Map<String, Integer> priorities) {
    InboxNames.requireValid(name);
    Objects.requireNonNull(priorities, "priorities");
    call(
        "enable priority on inbox " + name,
        name,
        h ->
            h.createQuery(InboxStatements.sql("enable_priority"))
                .bind("name", name)
                .bind("column", column)
                .bind("map", InboxStatements.json(priorities))
                .mapTo(String.class)
                .one());
  }

  @Override
  public PostgresInbox enableTracking(TrackingSpec s) {
    Objects.requireNonNull(s, "spec");
    call(
        "track table " + s.table() + " as inbox " + s.name(),
        s.name(),
        h ->
            h.createQuery(InboxStatements.sql("enable_tracking"))
                .bind("name", s.name())
                .bind("table", s.table())
                .bind("idColumn", s.idColumn())
                .bind("processedAtColumn", s.processedAtColumn())
                .bind("eventTypeColumn", s.eventTypeColumn())
                .bind("receivedAtColumn", s.receivedAtColumn())
                .bind("aggregateColumn", s.aggregateColumn())
                .bind("retryCountColumn", s.retryCountColumn())
                .bind("errorColumn", s.errorColumn())
                .bind("payloadColumn", s.payloadColumn())
                .bind("notify", s.notifyOnInsert())
                .bind("arrivalColumn", s.arrivalColumn())
                .bind("maxRetries", s.maxRetries())
                .bind(
                    "retentionHours",
                    s.processedRetention() == null
                        ? null
                        : wholeHours(s.processedRetention(), s.name()))
                .bind("dlqRetentionHours", wholeHours(s.dlqRetention(), s.name()))
                .mapTo(String.class)
                .one());
    LOG.info("inbox {} now tracks table {}", s.name(), s.table());
    return new PostgresInbox(jdbi, s.name(), false);
  }

  @Override
  public PostgresInbox inbox(String name) {
    InboxNames.requireValid(name);
    Optional<Boolean> managed =
        call(
            "open inbox " + name,
            name,
            h ->
                h.createQuery(InboxStatements.sql("managed"))
                    .bind("name", name)
                    .mapTo(Boolean.class)
                    .findOne());
    return new PostgresInbox(
        jdbi,
        name,
        managed.orElseThrow(
            () -> new InboxNotFoundException("inbox '" + name + "' does not exist", name, null)));
  }

  /**
   * Whether inbox {@code name} is distributed on Citus ({@code inbox.is_distributed}): its workers
   * then claim shard by shard, on the worker nodes (docs/scale-out.md). False for an inbox that
   * does not exist and on a database without Citus. The question a worker asks at start.
   */
  public boolean isDistributed(String name) {
    InboxNames.requireValid(name);
    return call(
        "read whether inbox " + name + " is distributed",
        name,
        h -> StartupCheck.distributed(h, name));
  }

  @Override
  public boolean exists(String name) {
    return InboxNames.isValid(name) && names().contains(name);
  }

  @Override
  public List<String> names() {
    return call(
        "list inboxes",
        null,
        h -> h.createQuery(InboxStatements.sql("names")).mapTo(String.class).list());
  }

  @Override
  public List<OperatorLogEntry> auditLog(int limit, Long beforeId) {
    return PostgresInboxOperations.auditLog(jdbi, null, limit, beforeId);
  }

  @Override
  public String loginRole() {
    return call(
        "read the login role",
        null,
        h -> h.createQuery(InboxStatements.sql("login_role")).mapTo(String.class).one());
  }

  private <T> T call(String action, String inbox, HandleCallback<T, Exception> callback) {
    return JdbiCalls.withHandle(jdbi, action, inbox, null, callback);
  }

  private static int wholeHours(Duration d, String inbox) {
    if (d.isNegative() || d.toSeconds() % 3600 != 0) {
      throw new InvalidInboxArgumentException(
          "retention must be a non-negative whole number of hours, got " + d, inbox);
    }
    return (int) d.toHours();
  }
}
