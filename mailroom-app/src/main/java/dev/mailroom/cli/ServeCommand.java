package dev.mailroom.cli;

import dev.mailroom.config.ConfigException;
import dev.mailroom.config.EnvironmentConfig;
import dev.mailroom.embedded.SecretKeyStore;
import dev.mailroom.verify.SigningKeys;
import dev.mailroom.verify.TokenVerifier;
import dev.mailroom.web.HttpSettings;
import dev.mailroom.web.TrustedProxies;
import dev.mailroom.web.VerificationServer;
import java.io.IOException;
import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;
import picocli.CommandLine.Command;

@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description =
        "Serves POST /activate (token) and POST /recover (token, code), and the forms their"
            + " links show by GET, on MAILROOM_HTTP_HOST"
            + " (127.0.0.1):MAILROOM_HTTP_PORT (8080), verifying tokens with MAILROOM_SECRET_KEY"
            + " and MAILROOM_PREVIOUS_SECRET_KEYS and consuming them in the database. Behind a"
            + " reverse proxy, MAILROOM_TRUSTED_PROXIES (addresses or CIDRs) lets its"
            + " X-Forwarded-For name the client.")
final class ServeCommand extends OperatorCommand {

  @Override
  int run(DataSource dataSource, PrintStream out) {
    HttpSettings http = HttpSettings.read(parent.io.env());
    TrustedProxies proxies = TrustedProxies.read(parent.io.env());
    SigningKeys keys =
        new SigningKeys(
            currentKey(),
            SigningKeys.parsePrevious(parent.io.env().get(SigningKeys.PREVIOUS_SECRET_KEYS)));
    CountDownLatch stop = new CountDownLatch(1);
    CountDownLatch finished = new CountDownLatch(1);
    try (VerificationServer server =
        VerificationServer.start(
            http.address(), new TokenVerifier(dataSource, keys), "", proxies)) {
      Signals.onTermination(n -> stop.countDown(), finished);
      err().println("serving on http://" + http.host() + ":" + server.port() + "/");
      stop.await();
      return 0;
    } catch (IOException e) {
      err().println("error: cannot serve on " + http.address() + ": " + e.getMessage());
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    } finally {
      finished.countDown();
    }
  }

  /** MAILROOM_SECRET_KEY, or in embedded mode the key the collector generated. */
  private byte[] currentKey() {
    if (config.secretKey() != null) {
      return config.secretKey();
    }
    if (config.database() == null) {
      try {
        return SecretKeyStore.loadExisting(config.dataDir())
            .orElseThrow(
                () ->
                    new ConfigException(
                        "no signing key: set "
                            + EnvironmentConfig.SECRET_KEY
                            + " or start the collector once in embedded mode"));
      } catch (IOException e) {
        throw new ConfigException("cannot read the generated key: " + e.getMessage());
      }
    }
    throw new ConfigException(EnvironmentConfig.SECRET_KEY + " must be a 64-character hex string");
  }
}
