package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxNames;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * The worker's statements, one classpath resource each next to this class. {@code ${inbox}} is the
 * inbox name, checked against {@link InboxNames} (lower-case letters, digits, underscore), so it
 * needs no quoting; everything else is a bind parameter.
 */
final class Sql {

  private Sql() {}

  static String load(String name, String inbox) {
    String resource = name + ".sql";
    try (InputStream in = Sql.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new InboxException(
            "SQL resource " + resource + " is missing from the classpath", inbox);
      }
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
      return text.replace("${inbox}", InboxNames.requireValid(inbox));
    } catch (IOException e) {
      throw new InboxException("cannot read SQL resource " + resource, inbox, e);
    }
  }
}
