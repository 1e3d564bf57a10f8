package dev.mailroom.collector;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
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

  private static final String QUERY = resource("tokens_of_batch.sql");

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

  private static String resource(String name) {
    try (InputStream in = BatchTokens.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing classpath resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
