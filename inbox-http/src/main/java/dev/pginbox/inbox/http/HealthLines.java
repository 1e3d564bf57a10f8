package dev.pginbox.inbox.http;

import dev.pginbox.inbox.operations.InboxHealth;
import dev.pginbox.inbox.operations.VacuumState;

/** The console's one-line summaries of what the database does to an inbox: horizon and vacuum. */
final class HealthLines {

  private HealthLines() {}

  /**
   * A warning while the database's xmin horizon is held back past the degraded threshold (the
   * horizon is the database's, so every inbox shows the same); empty otherwise.
   */
  static String horizon(InboxHealth h) {
    if (h == null
        || h.horizonHolder() == null
        || h.statusReasons().stream().noneMatch(r -> r.startsWith("xmin_horizon"))) {
      return "";
    }
    return "<p class=\"warning\" id=\"xmin-horizon\">The xmin horizon is held back "
        + (h.horizonHeldSeconds() > 0 ? "for " + Html.num(h.horizonHeldSeconds()) + " s " : "")
        + "by "
        + Html.esc(h.horizonHolder().summary())
        + ": vacuum removes nothing that died since, and the tables grow until it ends.</p>";
  }

  static String vacuum(VacuumState v) {
    return "<p class=\"vacuum\">vacuum owes "
        + Html.num(v.deadRows())
        + " rows · last vacuum "
        + (v.lastVacuum() == null ? "never" : Html.esc(Html.time(v.lastVacuum())))
        + " · autovacuum "
        + (v.autovacuum()
            ? "every "
                + v.autovacuumNaptimeSeconds()
                + " s, cost delay "
                + formatMs(v.autovacuumCostDelayMs())
                + " ms"
            : "off")
        + "</p>";
  }

  /** 0, 2 or 0.5: whole milliseconds without a fraction. */
  private static String formatMs(double ms) {
    return ms == Math.rint(ms) ? Long.toString((long) ms) : Double.toString(ms);
  }
}
