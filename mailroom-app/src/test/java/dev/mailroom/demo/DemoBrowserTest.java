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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The demo's loop in a real browser (headless Chromium): the page lists the emails the demo's SMTP
 * server caught, a click on an activation link and then on its button shows the account active, and
 * so do the page and the database afterwards.
 */
class DemoBrowserTest {

  private static final String BOUNCE = "nobody@bounce.demo.test";
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

  @Test
  void the_bounced_sign_up_is_replayed_from_the_console_audited_and_then_delivered()
      throws Exception {
    assumeTrue(HeadlessChromium.available(), HeadlessChromium.SKIP_MESSAGE);
    MailroomDb db = MailroomDb.create("mailroom_demo_console");
    try (RunningDemo demo = RunningDemo.start(db);
        HeadlessChromium chromium = HeadlessChromium.start()) {
      WebDriver browser = chromium.browser();
      browser.get(demo.home());
      String note = browser.findElement(By.xpath("//p[contains(., 'operator console')]")).getText();
      Matcher login = Pattern.compile("log in as demo with the password (\\S+), ").matcher(note);
      assertThat(login.find()).as(note).isTrue();
      assertThat(browser.findElement(By.linkText(demo.console())).getAttribute("href"))
          .isEqualTo(demo.console());
      assertThat(demo.log()).doesNotContain(login.group(1));
      String console =
          demo.console().replace("http://", "http://demo:" + login.group(1) + "@")
              + "inbox/mailroom";
      await()
          .atMost(Duration.ofSeconds(90))
          .ignoreExceptions()
          .until(
              () -> {
                browser.get(console);
                return browser.findElement(By.id("dlq-groups")).getText().contains(BOUNCE);
              });
      screenshot(browser, "demo-console-dead-letter.png");

      browser
          .findElement(By.xpath("//section[@id='dlq-groups']//button[text()='replay group']"))
          .click();
      new WebDriverWait(browser, Duration.ofSeconds(10))
          .until(b -> !b.findElements(By.id("confirm")).isEmpty());
      browser.findElement(By.id("confirm")).click();
      new WebDriverWait(browser, Duration.ofSeconds(10))
          .until(b -> !b.findElements(By.className("flash")).isEmpty());

      assertThat(browser.findElement(By.className("flash")).getText())
          .isEqualTo("replayed 1 message(s)");
      assertThat(
              db.count(
                  "SELECT count(*) FROM inbox.operator_log"
                      + " WHERE action = 'replay' AND actor = 'demo' AND rows_affected = 1"))
          .isEqualTo(1);
      await()
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(
              () -> {
                browser.get(demo.home());
                return !browser
                    .findElements(By.xpath("//tr[td[1][text()='" + BOUNCE + "']]"))
                    .isEmpty();
              });
    }
  }

  private static void screenshot(WebDriver browser, String name) throws Exception {
    Path shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath();
    Files.copy(shot, Path.of("target", name), StandardCopyOption.REPLACE_EXISTING);
  }
}
