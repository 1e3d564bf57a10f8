package dev.mailroom.collector;

import java.io.PrintStream;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * The collector's operator log on stderr, in the original's format {@code YYYY/MM/DD HH:MM:SS [PG]
 * message} (UTC), so existing log scraping keeps working. Library logs (SLF4J) stay separate; this
 * is the collector's own protocol with its operator.
 */
public final class CollectorLog {

  private static final DateTimeFormatter FORMAT =
      DateTimeFormatter.ofPattern("yyyy/MM/dd HH:mm:ss").withZone(ZoneOffset.UTC);

  private final PrintStream err;
  private final Clock clock;
  private final boolean debug;

  public CollectorLog(PrintStream err, Clock clock, boolean debug) {
    this.err = err;
    this.clock = clock;
    this.debug = debug;
  }

  public synchronized void info(String message) {
    err.println(FORMAT.format(clock.instant()) + " [PG] " + message);
    err.flush();
  }

  public void warn(String message) {
    info("WARN: " + message);
  }

  public void error(String message) {
    info("ERROR: " + message);
  }

  public void debug(String message) {
    if (debug) {
      info("DEBUG: " + message);
    }
  }
}
