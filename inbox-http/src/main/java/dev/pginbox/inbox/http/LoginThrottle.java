package dev.pginbox.inbox.http;

import dev.pginbox.inbox.http.server.FailedAttempts;
import java.time.Duration;
import java.util.Set;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Failed logins of the console, counted per client address and per user: a client that guessed
 * {@value #MAX_PER_ADDRESS} times in a window is refused until the window ends, and so is a user
 * name guessed {@value #MAX_PER_USER} times from any number of addresses. Refused requests are not
 * checked at all, so they tell a guesser nothing. Every failure is logged at WARN.
 */
final class LoginThrottle {

  private static final Logger LOG = LoggerFactory.getLogger(LoginThrottle.class);

  static final int MAX_PER_ADDRESS = 10;
  static final int MAX_PER_USER = 20;
  static final Duration WINDOW = Duration.ofMinutes(1);
  private static final int MAX_TRACKED_ADDRESSES = 10_000;

  private final FailedAttempts byAddress;
  private final FailedAttempts byUser;
  private final Set<String> users;

  /**
   * @param users the names that exist: only they are counted per user, so that guessed names cannot
   *     fill the memory
   */
  LoginThrottle(Set<String> users, LongSupplier nanoTime) {
    this.users = Set.copyOf(users);
    this.byAddress = new FailedAttempts(MAX_PER_ADDRESS, WINDOW, MAX_TRACKED_ADDRESSES, nanoTime);
    this.byUser = new FailedAttempts(MAX_PER_USER, WINDOW, Math.max(1, users.size()), nanoTime);
  }

  /** Whether a login attempt as {@code user} (null: none named) from {@code address} is refused. */
  boolean refused(String address, String user) {
    return byAddress.blocked(address) || known(user) && byUser.blocked(user);
  }

  void failed(String address, String user) {
    byAddress.failed(address);
    boolean known = known(user);
    if (known) {
      byUser.failed(user);
    }
    // Only known names are logged as given: anything else a client sends stays out of the log.
    LOG.warn("failed console login as {} from {}", known ? user : "an unknown user", address);
  }

  private boolean known(String user) {
    return user != null && users.contains(user);
  }
}
