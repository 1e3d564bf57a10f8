package dev.mailroom.cli;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/** Reads one JSON value of an inbox monitoring function, for the operator commands. */
final class OperatorQueries {

  private OperatorQueries() {}

  static String json(DataSource dataSource, String sql, String inbox) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, inbox);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getString(1);
      }
    }
  }
}
