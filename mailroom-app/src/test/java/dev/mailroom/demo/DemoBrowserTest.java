package dev.mailroom.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.mailroom.testkit.MailroomDb;
import dev.pginbox.inbox.testsupport.HeadlessChromium;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The demo's loop in a real browser (headless Chromium): the page lists the emails the demo's SMTP
 * server caught, a click on an activation link and then on its button shows the account active, and
 * so do the page and the database afterwards.
 */
class DemoBrowserTest {

  private static final By ACTIVATION_ROWS = By.xpath("//tr[td/a[text()='activate']]");

  @Test
  void a_click_on_a_caught_activation_email_activates_the_account() throws Exception {
    assumeTrue(HeadlessChromium.available(), HeadlessChromium.SKIP_MESSAGE);
    MailroomDb db = MailroomDb.create("mailroom_demo_browser");
    try (RunningDemo demo = RunningDemo.start(db);
        HeadlessChromium chromium = HeadlessChromium.start()) {
      String home = demo.home();
      WebDriver browser = chromium.browser();
      await()
          .atMost(Duration.ofSeconds(90))
          .ignoreExceptions()
          .until(
              () -> {
                browser.get(home);
                return !browser.findElements(ACTIVATION_ROWS).isEmpty();
              });
      WebElement row = browser.findElements(ACTIVATION_ROWS).get(0);
      List<WebElement> cells = row.findElements(By.tagName("td"));
      String email = cells.get(0).getText();
      assertThat(cells.get(3).getText()).isEqualTo("provisioned");
      WebElement link = row.findElement(By.linkText("activate"));
      assertThat(link.getAttribute("href")).startsWith(home + "activate?token=");

      link.click();
      browser.findElement(By.xpath("//button[text()='Activate my account']")).click();
      assertThat(browser.findElement(By.tagName("body")).getText())
          .contains("Your account is active");
      assertThat(
              db.count(
                  "SELECT count(*) FROM accounts WHERE email = ? AND status = 'active'", email))
          .isEqualTo(1);
      screenshot(browser, "demo-activated.png");

      browser.findElement(By.linkText("Back to the demo mailbox")).click();
      WebElement after = browser.findElement(By.xpath("//tr[td[1][text()='" + email + "']]/td[4]"));
      assertThat(after.getText()).isEqualTo("active");
    }
  }

  private static void screenshot(WebDriver browser, String name) throws Exception {
    Path shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath();
    Files.copy(shot, Path.of("target", name), StandardCopyOption.REPLACE_EXISTING);
  }
}
