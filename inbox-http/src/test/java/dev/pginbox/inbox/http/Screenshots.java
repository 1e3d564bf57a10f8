package dev.pginbox.inbox.http;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;

/**
 * Where the browser tests leave their screenshots: target/ by default, or the folder of the system
 * property {@code inbox.screenshots}; a relative folder is the repository's (so {@code
 * -Dinbox.screenshots=docs/images} regenerates the pictures of docs/operations.md).
 */
final class Screenshots {

  static final String PROPERTY = "inbox.screenshots";

  private Screenshots() {}

  /** Saves what the browser shows now as {@code <folder>/console-<name>.png}. */
  static Path save(WebDriver browser, String name) throws IOException {
    Path folder = folder();
    Files.createDirectories(folder);
    Path shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath();
    return Files.copy(
        shot, folder.resolve("console-" + name + ".png"), StandardCopyOption.REPLACE_EXISTING);
  }

  private static Path folder() {
    String configured = System.getProperty(PROPERTY);
    if (configured == null || configured.isBlank()) {
      return Path.of("target");
    }
    Path folder = Path.of(configured);
    // The tests run in the module's folder; the repository is its parent.
    return folder.isAbsolute() || !Files.exists(Path.of("..", "mvnw"))
        ? folder
        : Path.of("..").resolve(folder).normalize();
  }
}
