package dev.pginbox.inbox.postgres.internal;

import org.jdbi.v3.core.locator.ClasspathSqlLocator;

/**
 * SQL statements kept in {@code .sql} files next to their class (jdbi's convention: {@code
 * dev/pginbox/inbox/postgres/internal/MessageWriter/insert_one.sql}).
 */
public final class SqlResources {

  private static final ClasspathSqlLocator LOCATOR = ClasspathSqlLocator.create();

  private SqlResources() {}

  public static String get(Class<?> owner, String name) {
    return LOCATOR.locate(owner, name);
  }

  /**
   * A statement with a {@code <table>} placeholder filled with an already validated and quoted
   * table name. Values are never spliced in; they stay bind parameters.
   */
  public static String template(Class<?> owner, String name, String quotedTable) {
    return get(owner, name).replace("<table>", quotedTable);
  }
}
