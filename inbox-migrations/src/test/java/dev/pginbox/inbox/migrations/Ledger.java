package dev.pginbox.inbox.migrations;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** The ledger of steps ({@code inbox.schema_steps}) of a database, row by row. */
final class Ledger {

  /** The steps of these files, as install.sql records them. */
  static final List<String> STEPS =
      List.of(
          "1 baseline",
          "2 drop_functions_replaced_since_0_1_0",
          "3 failure_history",
          "4 dead_letters_by_aggregate",
          "5 heads_from_the_order_floor",
          "6 tracked_arrival_column");

  private Ledger() {}

  /** "step name" per row. */
  static List<String> steps(DataSource dataSource) throws SQLException {
    return rows(dataSource, "SELECT step || ' ' || name FROM inbox.schema_steps ORDER BY step");
  }

  /** "step name applied_at" per row: unchanged when no step ran again. */
  static List<String> stepsWithTimes(DataSource dataSource) throws SQLException {
    return rows(
        dataSource,
        "SELECT step || ' ' || name || ' ' || applied_at FROM inbox.schema_steps ORDER BY step");
  }

  private static List<String> rows(DataSource dataSource, String query) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(query)) {
      while (rs.next()) {
        rows.add(rs.getString(1));
      }
    }
    return rows;
  }
}
