package dev.pginbox.inbox.postgres;

import dev.pginbox.inbox.postgres.internal.SqlErrors;
import dev.pginbox.inbox.postgres.sql.SqlFiles;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.jdbi.v3.core.Handle;

/**
 * Applies a psql install script ({@code install.sql} with {@code \ir file.sql} lines) from the
 * classpath, so Java installs exactly the files an operator would run with psql. The files run in
 * the caller's transaction; psql-only lines ({@code \set}, {@code BEGIN}, {@code COMMIT}) are
 * skipped because the caller owns the transaction. Every file runs every time: the inbox's one-way
 * steps skip themselves when its ledger has them (sql/README.md), so nothing here decides which.
 */
public final class SqlScripts {

  private SqlScripts() {}

  /** The inbox SQL API, as shipped in this jar. */
  public static final String INBOX_INSTALL_SCRIPT = "dev/pginbox/inbox/sql/inbox/install.sql";

  private static final String INSTALL_LOCK = "dev/pginbox/inbox/sql/inbox/install_lock.sql";

  /**
   * Runs every {@code \ir} file of {@code installScript} (a classpath resource) in order, inside
   * one transaction, holding the same lock as the psql script.
   */
  public static void install(Handle handle, String installScript) {
    String base = installScript.substring(0, installScript.lastIndexOf('/') + 1);
    List<String> files = includedFiles(SqlFiles.file(installScript));
    try {
      handle.useTransaction(
          h -> {
            // The inbox install's lock serialises the other scripts (the mailroom's) too.
            List<String> resources = new ArrayList<>();
            resources.add(INSTALL_LOCK);
            for (String file : files) {
              resources.add(base + file);
            }
            for (String resource : resources) {
              // One round trip per file: pgJDBC splits the statements and keeps dollar-quoted
              // bodies intact.
              try (Statement statement = h.getConnection().createStatement()) {
                statement.execute(SqlFiles.file(resource));
              } catch (SQLException e) {
                throw SqlErrors.translate(e, "installing " + resource, null, null);
              }
            }
          });
    } catch (RuntimeException e) {
      throw SqlErrors.translate(e, "installing " + installScript, null, null);
    }
  }

  static List<String> includedFiles(String script) {
    List<String> files = new ArrayList<>();
    for (String line : script.split("\n")) {
      String trimmed = line.strip();
      if (trimmed.startsWith("\\ir ") || trimmed.startsWith("\\i ")) {
        files.add(trimmed.substring(trimmed.indexOf(' ') + 1).strip());
      }
    }
    return files;
  }
}
