package dev.pginbox.inbox.postgres.internal.worker.connection;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.statement.ColonPrefixSqlParser;
import org.jdbi.v3.core.statement.ParsedSql;

/**
 * A pgJDBC prepared statement whose parameters are bound by name. The statement's {@code :name}
 * placeholders are read by Jdbi's parser, the one placeholder syntax of the project's statements (a
 * {@code ::type} cast stays a cast), and become JDBC positions; a name used twice is bound at both.
 * The worker keeps these prepared for a connection's life, so it binds through pgJDBC rather than
 * through a Jdbi statement made for each execution.
 */
public final class NamedStatement {

  private static final ColonPrefixSqlParser PARSER = new ColonPrefixSqlParser();

  /** A value bound at one position. */
  @FunctionalInterface
  private interface Binder {
    void bind(PreparedStatement ps, int position) throws SQLException;
  }

  private final Connection connection;
  private final PreparedStatement ps;
  private final Map<String, List<Integer>> positions;

  private NamedStatement(
      Connection connection, PreparedStatement ps, Map<String, List<Integer>> positions) {
    this.connection = connection;
    this.ps = ps;
    this.positions = positions;
  }

  /** {@code sql} with named parameters, parsed: its JDBC text and each name's positions. */
  record Parsed(String jdbcSql, Map<String, List<Integer>> positions) {

    static Parsed of(String sql) {
      ParsedSql parsed = PARSER.parse(sql, null);
      List<String> names = parsed.getParameters().getParameterNames();
      Map<String, List<Integer>> positions = new HashMap<>();
      for (int i = 0; i < names.size(); i++) {
        positions.computeIfAbsent(names.get(i), n -> new ArrayList<>()).add(i + 1);
      }
      positions.replaceAll((name, at) -> List.copyOf(at));
      return new Parsed(parsed.getSql(), Map.copyOf(positions));
    }

    /** Prepares the JDBC text on {@code connection}. */
    NamedStatement prepare(Connection connection) throws SQLException {
      return new NamedStatement(connection, connection.prepareStatement(jdbcSql), positions);
    }
  }

  public NamedStatement setString(String name, String value) throws SQLException {
    return bind(name, (s, i) -> s.setString(i, value));
  }

  public NamedStatement setInt(String name, int value) throws SQLException {
    return bind(name, (s, i) -> s.setInt(i, value));
  }

  /** A {@code bigint}; null binds NULL. */
  public NamedStatement setLong(String name, Long value) throws SQLException {
    return bind(
        name,
        (s, i) -> {
          if (value == null) {
            s.setNull(i, Types.BIGINT);
          } else {
            s.setLong(i, value);
          }
        });
  }

  public NamedStatement setBoolean(String name, boolean value) throws SQLException {
    return bind(name, (s, i) -> s.setBoolean(i, value));
  }

  /** An array of SQL type {@code elementType} ({@code text}, {@code bool}, {@code int4}). */
  public NamedStatement setArray(String name, String elementType, Object[] values)
      throws SQLException {
    Array array = connection.createArrayOf(elementType, values);
    return bind(name, (s, i) -> s.setArray(i, array));
  }

  /** An {@code integer[]}; null binds NULL. */
  public NamedStatement setIntArray(String name, int[] values) throws SQLException {
    if (values == null) {
      return bind(name, (s, i) -> s.setNull(i, Types.ARRAY));
    }
    Integer[] boxed = new Integer[values.length];
    for (int i = 0; i < values.length; i++) {
      boxed[i] = values[i];
    }
    return setArray(name, "int4", boxed);
  }

  private NamedStatement bind(String name, Binder binder) throws SQLException {
    List<Integer> at = positions.get(name);
    if (at == null) {
      throw new IllegalArgumentException(
          "no parameter :" + name + " in this statement; it has " + positions.keySet());
    }
    for (int position : at) {
      binder.bind(ps, position);
    }
    return this;
  }

  public ResultSet executeQuery() throws SQLException {
    return ps.executeQuery();
  }

  public boolean execute() throws SQLException {
    return ps.execute();
  }

  /** The JDBC statement, for its results ({@code getResultSet}, {@code getMoreResults}). */
  public PreparedStatement jdbc() {
    return ps;
  }
}
