package dev.mailroom.collector;

import dev.pginbox.inbox.postgres.sql.SqlFiles;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/** Loads the tokens of a batch: one query per batch, whatever its size. */
final class BatchTokens {

  private static final String QUERY = SqlFiles.get(BatchTokens.class, "tokens_of_batch");

  private BatchTokens() {}

  static Map<Long, TokenRow> load(Connection connection, Collection<Long> ids) throws SQLException {
    Map<Long, TokenRow> rows = new HashMap<>();
    if (ids.isEmpty()) {
      return rows;
    }
    Array array = connection.createArrayOf("bigint", ids.toArray(new Long[0]));
    try (PreparedStatement statement = connection.prepareStatement(QUERY)) {
      statement.setArray(1, array);
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          TokenRow row =
              new TokenRow(
                  rs.getLong("id"),
                  rs.getString("action"),
                  rs.getString("email"),
                  rs.getString("login"),
                  rs.getBytes("secret"),
                  rs.getString("code"),
                  rs.getString("ineligible"));
          rows.put(row.id(), row);
        }
      }
    } finally {
      array.free();
    }
    return rows;
  }
}
