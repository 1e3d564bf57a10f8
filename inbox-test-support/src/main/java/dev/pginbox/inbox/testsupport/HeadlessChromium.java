package dev.pginbox.inbox.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * A real browser for tests: headless Chromium from the Debian packages {@code chromium} and {@code
 * chromium-driver} (no driver download, no network), driven by Selenium, with a throw-away profile.
 * Tests check {@link #available()} first and skip with {@link #SKIP_MESSAGE} where the packages are
 * missing. Selenium itself comes from the test's class path.
 *
 * <pre>{@code
 * assumeTrue(HeadlessChromium.available(), HeadlessChromium.SKIP_MESSAGE);
 * try (HeadlessChromium chromium = HeadlessChromium.start()) {
 *   chromium.browser().get("http://127.0.0.1:" + port + "/");
 * }
 * }</pre>
 */
public final class HeadlessChromium implements AutoCloseable {

  public static final String SKIP_MESSAGE =
      "SKIP: the browser tests need the Debian packages chromium and chromium-driver";

  private static final File CHROMIUM = new File("/usr/bin/chromium");
  private static final File CHROMEDRIVER = new File("/usr/bin/chromedriver");

  private final WebDriver browser;
  private final Path profile;

  private HeadlessChromium(WebDriver browser, Path profile) {
    this.browser = browser;
    this.profile = profile;
  }

  /** Whether the Debian chromium and chromedriver are installed. */
  public static boolean available() {
    return CHROMIUM.canExecute() && CHROMEDRIVER.canExecute();
  }

  /** Starts a browser with a fresh profile, a 1400x1000 window and a 30-second page-load limit. */
  public static HeadlessChromium start() {
    Path profile;
    try {
      profile = Files.createTempDirectory("headless-chromium");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM);
    options.addArguments(
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1400,1000",
        "--user-data-dir=" + profile);
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(CHROMEDRIVER)
            .usingAnyFreePort()
            .build();
    WebDriver browser = new ChromeDriver(service, options);
    browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
    return new HeadlessChromium(browser, profile);
  }

  public WebDriver browser() {
    return browser;
  }

  /** Quits the browser and its driver and deletes the profile. */
  @Override
  public void close() {
    try {
      browser.quit();
    } finally {
      try (Stream<Path> files = Files.walk(profile)) {
        files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
      } catch (IOException e) {
        // A leftover profile in the temporary directory harms nothing.
      }
    }
  }
}
