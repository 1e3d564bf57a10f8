package dev.pginbox.inbox.postgres.internal.worker.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.postgres.sql.SqlFiles;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The worker's statements as files with named parameters, without a database. */
class WorkerSqlTest {

  private static String text(WorkerSql sql) {
    return SqlFiles.get(WorkerConnection.class, sql.fileName(), Map.of("inbox", "orders"));
  }

  @Test
  void every_statement_has_its_file_and_binds_by_name_only() {
    for (WorkerSql sql : WorkerSql.values()) {
      String text = text(sql);
      assertThat(text).as(sql.name()).doesNotContain("?");
      NamedStatement.Parsed parsed = NamedStatement.Parsed.of(text);
      int bound = parsed.positions().values().stream().mapToInt(List::size).sum();
      long placeholders = parsed.jdbcSql().chars().filter(c -> c == '?').count();
      assertThat(placeholders).as(sql.name()).isEqualTo(bound);
    }
  }

  @Test
  void a_cast_stays_a_cast_and_a_name_used_twice_is_bound_at_both_places() {
    NamedStatement.Parsed claim = NamedStatement.Parsed.of(text(WorkerSql.CLAIM));
    assertThat(claim.jdbcSql()).contains("SELECT ?::integer AS lim").contains("?::integer[]");
    assertThat(claim.positions().get("serverBound")).containsExactly(2, 3);
    assertThat(claim.positions())
        .containsOnlyKeys(
            "limit", "serverBound", "buckets", "maxBatchBytes", "lowerPriority", "perAggregate");
    NamedStatement.Parsed ending = NamedStatement.Parsed.of(text(WorkerSql.END_TIMED_OUT_BATCH));
    assertThat(ending.positions().get("inbox")).containsExactly(1, 6);
    assertThat(ending.jdbcSql()).endsWith("COMMIT");
  }
}
