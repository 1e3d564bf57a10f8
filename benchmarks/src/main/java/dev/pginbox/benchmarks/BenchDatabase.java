package dev.pginbox.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.pginbox.inbox.postgres.SqlScripts;
import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;

/**
 * A fresh database with the inbox SQL API installed, on the same server the tests use
 * (INBOX_TEST_DATABASE_URL, else Testcontainers, else an embedded PostgreSQL 18 with durable
 * commits).
 */
final class BenchDatabase {

  final TestDatabase database;
  final DataSource dataSource;
  final Jdbi jdbi;

  private BenchDatabase(TestDatabase database) {
    this.database = database;
    this.dataSource = pool(database);
    this.jdbi = Jdbi.create(dataSource);
    jdbi.useHandle(h -> SqlScripts.install(h, SqlScripts.INBOX_INSTALL_SCRIPT));
  }

  /**
   * Producers share a pool, as an application would; a new connection per call costs milliseconds.
   */
  private static DataSource pool(TestDatabase database) {
    return pool(database, null);
  }

  /**
   * A pool whose connections act as {@code role} (SET ROLE), a NOLOGIN member of {@code group}
   * created if missing: the privileges of that group, without a password to manage.
   */
  DataSource poolAs(String role, String group) {
    execute(
        "DO $$ BEGIN CREATE ROLE "
            + role
            + " NOLOGIN IN ROLE "
            + group
            + "; "
            + "EXCEPTION WHEN duplicate_object THEN NULL; END $$");
    return pool(database, "SET ROLE " + role);
  }

  private static DataSource pool(TestDatabase database, String initSql) {
    HikariConfig config = new HikariConfig();
    if (initSql != null) {
      config.setConnectionInitSql(initSql);
    }
    config.setJdbcUrl(database.jdbcUrl());
    config.setUsername(database.user());
    config.setPassword(database.password());
    config.setMaximumPoolSize(16);
    config.setPoolName("bench-" + database.name() + (initSql == null ? "" : "-role"));
    return new HikariDataSource(config);
  }

  static BenchDatabase create(String prefix) {
    System.setProperty(TestPostgres.DURABLE_PROPERTY, "true");
    return new BenchDatabase(TestPostgres.shared().newDatabase("bench_" + prefix));
  }

  void execute(String sql) {
    jdbi.useHandle(h -> h.execute(sql));
  }

  long count(String sql) {
    return jdbi.withHandle(h -> h.createQuery(sql).mapTo(Long.class).one());
  }

  /** Checkpoints the server has run (timed and requested), from PostgreSQL 15 to 18. */
  long checkpoints() {
    // PostgreSQL 17 moved the counters to pg_stat_checkpointer; a query naming a relation the
    // server lacks fails at parse time, so pick the statement by version.
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      String sql =
          c.getMetaData().getDatabaseMajorVersion() >= 17
              ? "SELECT num_timed + num_requested FROM pg_stat_checkpointer"
              : "SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter";
      try (ResultSet r = s.executeQuery(sql)) {
        r.next();
        return r.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Runs {@code sql} on one connection and has that backend report its statistics when it goes idle
   * (PostgreSQL 15+), instead of up to ten seconds later: work done before a measured window must
   * not land in it ({@link #bufferReads}).
   */
  void executeAndReport(String... sql) throws SQLException {
    jdbi.useHandle(
        h -> {
          for (String statement : sql) {
            h.execute(statement);
          }
          if (h.getConnection().getMetaData().getDatabaseMajorVersion() >= 15) {
            h.execute("SELECT pg_stat_force_next_flush()");
          }
        });
  }

  /**
   * Pages of shared buffers this database's backends have read so far, hits and misses
   * (pg_stat_database), once the count has settled: a backend reports at most once a second and
   * when it exits, so the count is read until two readings 100 ms apart agree (at most 2 s). A
   * figure that repeats from run to run where rates on a shared machine do not.
   */
  long bufferReads() throws InterruptedException {
    long last = -1;
    for (int i = 0; i < 20; i++) {
      long now =
          count(
              "SELECT blks_hit + blks_read FROM pg_stat_database WHERE datname = current_database()");
      if (now == last) {
        return now;
      }
      last = now;
      Thread.sleep(100);
    }
    return last;
  }

  /** Server version and the settings that bound the numbers, for the report header. */
  String describeServer() {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery(
                "SELECT version(), current_setting('synchronous_commit'), "
                    + "current_setting('shared_buffers'), current_setting('fsync')")) {
      r.next();
      return r.getString(1)
          + "; synchronous_commit="
          + r.getString(2)
          + ", shared_buffers="
          + r.getString(3)
          + ", fsync="
          + r.getString(4);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
