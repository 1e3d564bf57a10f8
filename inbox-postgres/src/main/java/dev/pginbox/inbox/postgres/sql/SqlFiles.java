package dev.pginbox.inbox.postgres.sql;

import dev.pginbox.inbox.InboxException;
import java.util.Map;
import org.jdbi.v3.core.locator.ClasspathSqlLocator;

/**
 * The one way the project loads SQL, public so that the Spring Boot starter, the test kit and
 * applications built on the library (the mailroom) read theirs the same way: Jdbi's classpath
 * locator, statements in {@code .sql} files next to their class ({@code
 * dev/pginbox/inbox/postgres/internal/MessageWriter/insert_one.sql}), and one placeholder syntax,
 * {@code <name>}, for identifiers only. An identifier filled in must already be validated (an inbox
 * name) or validated and quoted (a table); values are never spliced in, they stay bind parameters.
 */
public final class SqlFiles {

  private static final ClasspathSqlLocator LOCATOR = ClasspathSqlLocator.create();

  private SqlFiles() {}

  /** Statement {@code name} of {@code owner}, without placeholders. */
  public static String get(Class<?> owner, String name) {
    return get(owner, name, Map.of());
  }

  /** Statement {@code name} of {@code owner} with each {@code <key>} replaced by its identifier. */
  public static String get(Class<?> owner, String name, Map<String, String> identifiers) {
    String sql;
    try {
      sql = LOCATOR.locate(owner, name).strip();
    } catch (RuntimeException e) {
      throw new InboxException(
          "SQL statement " + name + " of " + owner.getName() + " is missing", null, e);
    }
    for (Map.Entry<String, String> identifier : identifiers.entrySet()) {
      sql = sql.replace("<" + identifier.getKey() + ">", identifier.getValue());
    }
    return sql;
  }

  /** A whole SQL file by its classpath path (the psql install scripts). */
  public static String file(String path) {
    try {
      return LOCATOR.getResource(SqlFiles.class.getClassLoader(), path);
    } catch (RuntimeException e) {
      throw new InboxException("SQL resource " + path + " is missing from the classpath", null, e);
    }
  }
}
