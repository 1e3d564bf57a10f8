package dev.pginbox.inbox.migrations;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * What the inbox SQL API installed in schema {@code inbox}: every function with its arguments,
 * settings and body, every table column, view, index and trigger. Two databases with the same
 * fingerprint have the same API. Flyway's history table of the inbox (FlywayMigrationTest) is not
 * part of it.
 */
final class SchemaFingerprint {

  private static final String QUERY =
      """
      SELECT 'function ' || p.oid::regprocedure || ' ' || md5(p.prosrc)
             || ' ' || coalesce(array_to_string(p.proconfig, ','), '')
        FROM pg_proc p WHERE p.pronamespace = 'inbox'::regnamespace
      UNION ALL
      SELECT 'column ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
             || ' ' || a.attnotnull || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
        FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0
             AND NOT a.attisdropped
        LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
       WHERE c.relnamespace = 'inbox'::regnamespace AND c.relkind IN ('r', 'p')
         AND c.relname <> 'inbox_schema_history'
      UNION ALL
      SELECT 'view ' || c.relname || ' ' || md5(pg_get_viewdef(c.oid))
        FROM pg_class c WHERE c.relnamespace = 'inbox'::regnamespace AND c.relkind = 'v'
      UNION ALL
      SELECT 'index ' || pg_get_indexdef(i.indexrelid)
        FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
       WHERE c.relnamespace = 'inbox'::regnamespace
         AND i.indrelid <> coalesce(to_regclass('inbox.inbox_schema_history'), 0)
      UNION ALL
      SELECT 'trigger ' || t.tgname || ' ' || pg_get_triggerdef(t.oid)
        FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
       WHERE c.relnamespace = 'inbox'::regnamespace AND NOT t.tgisinternal
      ORDER BY 1
      """;

  private SchemaFingerprint() {}

  static List<String> of(DataSource dataSource) throws SQLException {
    List<String> lines = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(QUERY)) {
      while (rs.next()) {
        lines.add(rs.getString(1));
      }
    }
    return lines;
  }
}
