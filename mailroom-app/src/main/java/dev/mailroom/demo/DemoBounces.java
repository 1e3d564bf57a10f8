package dev.mailroom.demo;

import dev.mailroom.output.DeliveryOutcome;
import dev.mailroom.output.OutputRecord;
import dev.mailroom.output.TokenDelivery;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

/**
 * The demo's bounce: the first email to an address at {@value #DOMAIN} is refused as a mail server
 * refuses an unknown mailbox (a permanent failure, so the token becomes a dead letter at once); the
 * next one, after an operator replayed it, is delivered. Every other email goes through unchanged.
 */
final class DemoBounces implements TokenDelivery {

  static final String DOMAIN = "bounce.demo.test";

  /** The demo's account at that domain, signed up when the demo starts. */
  static final String EMAIL = "nobody@" + DOMAIN;

  private final TokenDelivery delivery;
  private final Set<String> refusedOnce = ConcurrentHashMap.newKeySet();

  DemoBounces(TokenDelivery delivery) {
    this.delivery = delivery;
  }

  @Override
  public List<DeliveryOutcome> deliver(List<OutputRecord> records) {
    List<OutputRecord> passing = new ArrayList<>();
    DeliveryOutcome[] outcomes = new DeliveryOutcome[records.size()];
    for (int i = 0; i < records.size(); i++) {
      OutputRecord r = records.get(i);
      if (r.email().endsWith("@" + DOMAIN) && refusedOnce.add(r.email())) {
        outcomes[i] =
            DeliveryOutcome.permanent(
                "550 5.1.1 <"
                    + r.email()
                    + ">: mailbox unavailable (the demo refuses the first email to "
                    + DOMAIN
                    + "; replay it from the console)");
      } else {
        passing.add(r);
      }
    }
    List<DeliveryOutcome> delivered = passing.isEmpty() ? List.of() : delivery.deliver(passing);
    int next = 0;
    for (int i = 0; i < outcomes.length; i++) {
      if (outcomes[i] == null) {
        outcomes[i] = delivered.get(next++);
      }
    }
    return List.of(outcomes);
  }

  /** Signs up the account whose first email bounces (once per database). */
  static void signUp(DataSource dataSource) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement insert =
            c.prepareStatement(
                "INSERT INTO public.accounts (email, login) VALUES (?, 'nobody')"
                    + " ON CONFLICT DO NOTHING")) {
      insert.setString(1, EMAIL);
      insert.executeUpdate();
    }
  }

  @Override
  public Optional<String> unsupported(OutputRecord record) {
    return delivery.unsupported(record);
  }

  @Override
  public String name() {
    return delivery.name();
  }

  @Override
  public void close() {
    delivery.close();
  }
}
