package dev.mailroom.testkit;

import java.nio.file.Path;

/** One XDG_CACHE_HOME for the tests of this module: the server binaries are extracted once. */
public final class EmbeddedTestCache {

  public static final Path XDG_CACHE_HOME = Path.of("target", "xdg-cache").toAbsolutePath();

  /** The mailroom's cache inside it, as embedded mode derives it. */
  public static final Path MAILROOM = XDG_CACHE_HOME.resolve("mailroom");

  private EmbeddedTestCache() {}
}
