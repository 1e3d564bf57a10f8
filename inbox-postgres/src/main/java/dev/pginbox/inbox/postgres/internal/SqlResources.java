package dev.pginbox.inbox.postgres.internal;

import dev.pginbox.inbox.postgres.sql.SqlFiles;
import java.util.Map;

/**
 * Forwards to {@link SqlFiles}, the one SQL reader. It stays only while the worker package, which
 * imports it, is being restructured; delete it when the worker reads through {@link SqlFiles}.
 */
public final class SqlResources {

  private SqlResources() {}

  /** {@link SqlFiles#get(Class, String, Map)}. */
  public static String get(Class<?> owner, String name, Map<String, String> identifiers) {
    return SqlFiles.get(owner, name, identifiers);
  }
}
