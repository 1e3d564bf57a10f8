package dev.pginbox.inbox.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.postgres.PostgresInbox;
import dev.pginbox.inbox.testsupport.HeadlessChromium;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in a real browser: headless Chromium (Debian packages chromium and chromium-driver,
 * installed by .ci/run) driven by Selenium.
 */
class ConsoleBrowserTest extends HttpTestSupport {

  private static InboxHttp.Running server;
  private static HeadlessChromium chromium;
  private static WebDriver browser;
  private static String origin;

  @BeforeAll
  static void start() throws Exception {
    assumeTrue(HeadlessChromium.available(), HeadlessChromium.SKIP_MESSAGE);
    installDatabase("inbox_console");
    PostgresInbox shipments = manager.createInbox("shipments");
    manager.enableOrdering("shipments");
    for (int i = 0; i < 12; i++) {
      shipments.send(
          NewMessage.of("s" + i, "shipment.booked", "truck-" + (i % 3), "{\"box\": " + i + "}"));
    }
    // truck-0's head is dead, through the failure path (three failed attempts, each recorded with
    // its time): its later messages wait behind it.
    for (int attempt = 1; attempt <= 3; attempt++) {
      sql("SELECT inbox.mark_failed('shipments', 's0', 'carrier 4711 refused', interval '0')");
    }
    PostgresInbox invoices = manager.createInbox("invoices");
    for (int i = 0; i < 5; i++) {
      invoices.send(
          NewMessage.of("i" + i, "invoice.issued", "c" + i, "{\"total\": " + (10 * i) + "}"));
    }
    for (String id : List.of("i1", "i2", "i3")) {
      for (int attempt = 1; attempt <= 3; attempt++) {
        sql(
            "SELECT inbox.mark_failed('invoices', '"
                + id
                + "', 'tax service timeout after "
                + (100 + id.length())
                + " ms', interval '0')");
      }
    }
    sql(
        "UPDATE inbox.invoices SET processed_at = now() - make_interval(mins => length(event_id)) WHERE event_id = 'i0'");

    PostgresInbox parcels = manager.createInbox("parcels");
    for (int i = 0; i < 3; i++) {
      parcels.send(NewMessage.of("p" + i, "parcel.sent", "p" + i, "{}"));
    }
    sql("UPDATE inbox.parcels SET retry_count = 3, error = 'depot closed'");

    server =
        InboxHttp.builder(manager)
            .credentials(operatorCredentials())
            .writeActions(true)
            .build()
            .start(loopback());
    origin = "127.0.0.1:" + server.address().getPort();

    chromium = HeadlessChromium.start();
    browser = chromium.browser();
  }

  @AfterAll
  static void stop() throws Exception {
    if (chromium != null) {
      chromium.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void the_console_lists_every_inbox_with_its_counts() throws Exception {
    browser.get("http://" + origin + "/");
    String table = browser.findElement(By.tagName("table")).getText();
    assertThat(table).contains("shipments").contains("invoices");
    // shipments: 11 waiting, 1 dead letter (degraded), 1 blocked aggregate; no test replays it.
    var cells =
        browser
            .findElement(By.xpath("//tr[td/a[text()='shipments']]"))
            .findElements(By.tagName("td"));
    assertThat(cells.get(1).getText()).isEqualTo("degraded");
    assertThat(cells.get(2).getText()).isEqualTo("11");
    assertThat(cells.get(4).getText()).isEqualTo("1");
    assertThat(cells.get(5).getText()).isEqualTo("1");
    Screenshots.save(browser, "overview");
  }

  @Test
  void an_inbox_page_shows_a_blocked_aggregate_and_its_reason() throws Exception {
    browser.get("http://" + origin + "/inbox/shipments");
    String blocked = browser.findElement(By.id("blocked")).getText();
    assertThat(blocked)
        .contains("truck-0")
        .contains("dead_letter")
        .contains("carrier 4711 refused");
    // s0 is the head; s3, s6, s9 wait behind it.
    WebElement row =
        browser.findElement(By.xpath("//section[@id='blocked']//tr[td[text()='truck-0']]"));
    assertThat(row.findElements(By.tagName("td")).get(5).getText()).isEqualTo("3");
    // Blocked since its death: the time of its third failed attempt.
    assertThat(row.findElements(By.tagName("td")).get(6).getText())
        .isEqualTo(diedAt("shipments", "s0"));
    // Waiting behind the blocked head is a state of its own in the partition lag.
    WebElement lag = browser.findElement(By.xpath("//section[@id='lag']//tbody/tr"));
    assertThat(lag.findElements(By.tagName("td")).get(3).getText()).isEqualTo("3");
    Screenshots.save(browser, "inbox");
    ((JavascriptExecutor) browser)
        .executeScript("document.getElementById('blocked').scrollIntoView()");
    Screenshots.save(browser, "blocked-aggregates");
  }

  @Test
  void the_message_page_shows_when_it_died_and_its_failed_attempts() throws Exception {
    browser.get("http://" + origin + "/inbox/shipments/message/s0");
    String facts = browser.findElement(By.tagName("dl")).getText();
    assertThat(facts)
        .contains("died at\n" + diedAt("shipments", "s0"))
        .contains(
            "blocked since\n" + diedAt("shipments", "s0") + " (dead_letter, 3 waiting behind)")
        .contains("failing since");
    List<WebElement> attempts =
        browser.findElements(
            By.xpath("//h2[text()='Failed attempts']/following::table[1]//tbody/tr"));
    assertThat(attempts)
        .extracting(r -> r.findElements(By.tagName("td")).get(0).getText())
        .containsExactly("1", "2", "3");
    assertThat(attempts.get(2).getText()).contains("carrier 4711 refused");
    Screenshots.save(browser, "message");

    browser.get("http://" + origin + "/inbox/shipments/dlq");
    assertThat(browser.findElement(By.tagName("table")).getText()).contains("s0");
    Screenshots.save(browser, "dead-letters");
  }

  @Test
  void dead_letter_groups_show_when_their_letters_died_and_the_chart_counts_failures() {
    browser.get("http://" + origin + "/inbox/shipments");
    WebElement group = browser.findElement(By.xpath("//section[@id='dlq-groups']//tbody/tr"));
    List<WebElement> cells = group.findElements(By.tagName("td"));
    assertThat(cells.get(3).getText()).isEqualTo(diedAt("shipments", "s0"));
    assertThat(cells.get(4).getText()).isEqualTo(diedAt("shipments", "s0"));
    // s0's three failed attempts this hour, stacked on the processed bars of the chart.
    assertThat(
            browser
                .findElement(By.cssSelector("[data-inbox='shipments'][data-live='total']"))
                .getText())
        .endsWith("3 failed");
    assertThat(browser.findElements(By.cssSelector("svg.chart rect.failed"))).isNotEmpty();
  }

  /** A time as the console prints it. */
  private static String diedAt(String inbox, String eventId) {
    return Html.time(manager.inbox(inbox).operations().message(eventId).orElseThrow().diedAt());
  }

  @Test
  void replaying_a_dlq_group_asks_for_confirmation_with_the_count_and_changes_the_counts() {
    // Credentials in the URL: the browser answers the basic-auth challenge of the write pages.
    browser.get("http://" + USER + ":" + PASSWORD + "@" + origin + "/inbox/invoices");
    String groups = browser.findElement(By.id("dlq-groups")).getText();
    assertThat(groups).contains("tax service timeout after <n> ms").contains("3");

    browser
        .findElement(By.xpath("//section[@id='dlq-groups']//button[text()='replay group']"))
        .click();
    new WebDriverWait(browser, Duration.ofSeconds(10))
        .until(b -> !b.findElements(By.id("confirm")).isEmpty());
    assertThat(browser.findElement(By.className("touched")).getText()).startsWith("3 message(s)");
    assertThat(count("SELECT count(*) FROM inbox.invoices_dlq")).isEqualTo(3);

    browser.findElement(By.id("confirm")).click();
    new WebDriverWait(browser, Duration.ofSeconds(10))
        .until(b -> !b.findElements(By.className("flash")).isEmpty());
    assertThat(browser.findElement(By.className("flash")).getText())
        .isEqualTo("replayed 3 message(s)");
    assertThat(browser.findElement(By.className("summary")).getText()).contains("0 dead");
    assertThat(count("SELECT count(*) FROM inbox.invoices_dlq")).isZero();
    assertThat(
            count(
                "SELECT count(*) FROM inbox.operator_log WHERE action = 'replay' AND actor = 'operator' AND rows_affected = 3"))
        .isEqualTo(1);
  }

  @Test
  void pause_resume_and_retry_now_are_confirmed_run_and_audited() {
    PostgresInbox jobs = manager.createInbox("jobs");
    jobs.send(NewMessage.of("j1", "job", "j1", "{}"));
    sql(
        "UPDATE inbox.jobs SET retry_count = 1, error = 'busy', next_attempt_at = now() + interval '1 hour'");
    String page = "http://" + USER + ":" + PASSWORD + "@" + origin + "/inbox/jobs";

    browser.get(page);
    confirmAndRun("//section[@id='consumption']//button[text()='pause consumption']");
    assertThat(browser.findElement(By.className("flash")).getText())
        .isEqualTo("paused consumption");
    assertThat(browser.findElement(By.className("paused")).getText())
        .startsWith("Consumption paused since");
    assertThat(jobs.operations().pausedSince()).isNotNull();

    confirmAndRun("//section[@id='consumption']//button[text()='resume consumption']");
    assertThat(browser.findElement(By.className("flash")).getText())
        .isEqualTo("resumed consumption");
    assertThat(jobs.operations().pausedSince()).isNull();

    browser.get(page + "/message/j1");
    confirmAndRun("//button[text()='retry this message now']");
    assertThat(browser.findElement(By.className("flash")).getText())
        .isEqualTo("made 1 message(s) due now");
    assertThat(count("SELECT count(*) FROM inbox.jobs WHERE next_attempt_at <= now()"))
        .isEqualTo(1);
    java.util.List<String> audited =
        jdbi.withHandle(
            h ->
                h.select(
                        "SELECT action FROM inbox.operator_log WHERE inbox_name = 'jobs'"
                            + " AND actor = 'operator' ORDER BY id")
                    .mapTo(String.class)
                    .list());
    assertThat(audited).containsExactly("pause", "resume", "retry_now");
  }

  /** Clicks an action's button, then the confirmation's, and waits for the inbox page. */
  private static void confirmAndRun(String button) {
    browser.findElement(By.xpath(button)).click();
    new WebDriverWait(browser, Duration.ofSeconds(10))
        .until(b -> !b.findElements(By.id("confirm")).isEmpty());
    browser.findElement(By.id("confirm")).click();
    new WebDriverWait(browser, Duration.ofSeconds(10))
        .until(b -> !b.findElements(By.className("flash")).isEmpty());
  }

  /**
   * The dead-letter page refreshes itself every 15 s; a refresh used to drop the boxes an operator
   * had ticked as soon as the focus left them. The test runs the page's timers every 500 ms once
   * the boxes are ticked (it speeds up the page's clock, not the page) and counts their ticks, so
   * it waits for refreshes to have come, not for a fixed time.
   */
  @Test
  void selected_dead_letters_stay_selected_across_refreshes_and_replay_what_was_selected() {
    String id =
        (String)
            ((ChromeDriver) browser)
                .executeCdpCommand(
                    "Page.addScriptToEvaluateOnNewDocument",
                    Map.of(
                        "source",
                        "const every = window.setInterval;"
                            + "window.setInterval = (f, ms, ...args) => every(() => {"
                            + " if (!sessionStorage.fast) return;"
                            + " sessionStorage.ticks = Number(sessionStorage.ticks || 0) + 1;"
                            + " f(...args); }, Math.min(ms, 500));"))
                .get("identifier");
    try {
      browser.get("http://" + USER + ":" + PASSWORD + "@" + origin + "/inbox/parcels/dlq");
      for (String eventId : List.of("p0", "p2")) {
        browser.findElement(By.cssSelector("input[name=id][value='" + eventId + "']")).click();
      }
      // The operator reads on: the focus leaves the boxes. Then the clock runs.
      browser.findElement(By.tagName("h1")).click();
      ((JavascriptExecutor) browser)
          .executeScript("sessionStorage.ticks = 0; sessionStorage.fast = 1");
      new WebDriverWait(browser, Duration.ofSeconds(20))
          .until(
              b ->
                  Long.parseLong(
                          String.valueOf(
                              ((JavascriptExecutor) b)
                                  .executeScript("return sessionStorage.ticks || '0'")))
                      >= 3);
      ((JavascriptExecutor) browser).executeScript("sessionStorage.removeItem('fast')");

      assertThat(browser.findElements(By.cssSelector("input[name=id]:checked")))
          .extracting(box -> box.getAttribute("value"))
          .containsExactly("p0", "p2");
      assertThat(browser.findElement(By.className("refresh-paused")).isDisplayed()).isTrue();
      browser.findElement(By.xpath("//button[text()='replay selected']")).click();
      new WebDriverWait(browser, Duration.ofSeconds(10))
          .until(b -> !b.findElements(By.id("confirm")).isEmpty());
      assertThat(browser.findElement(By.className("touched")).getText()).startsWith("2 message(s)");
      browser.findElement(By.id("confirm")).click();
      new WebDriverWait(browser, Duration.ofSeconds(10))
          .until(b -> !b.findElements(By.className("flash")).isEmpty());
      assertThat(count("SELECT count(*) FROM inbox.parcels_dlq WHERE event_id IN ('p0', 'p2')"))
          .isZero();
      assertThat(count("SELECT count(*) FROM inbox.parcels_dlq WHERE event_id = 'p1'"))
          .isEqualTo(1);
    } finally {
      // A page without the console's script first: a page that reloads itself every half second
      // keeps the browser too busy to answer.
      browser.get("about:blank");
      ((ChromeDriver) browser)
          .executeCdpCommand("Page.removeScriptToEvaluateOnNewDocument", Map.of("identifier", id));
    }
  }

  @Test
  void without_credentials_the_write_action_is_refused_and_nothing_changes() {
    // 'localhost' is another origin than '127.0.0.1': the browser holds no credentials for it.
    String page = "http://localhost:" + server.address().getPort() + "/inbox/shipments";
    browser.get(page);
    browser
        .findElement(By.xpath("//section[@id='dlq-groups']//button[text()='replay group']"))
        .click();
    new WebDriverWait(browser, Duration.ofSeconds(10))
        .until(b -> b.getCurrentUrl().endsWith("/confirm"));
    assertThat(browser.findElements(By.id("confirm"))).isEmpty();

    browser.get(page);
    Object status =
        ((JavascriptExecutor) browser)
            .executeAsyncScript(
                "const done = arguments[arguments.length - 1];"
                    + "fetch('/inbox/shipments/run', {method: 'POST', credentials: 'omit',"
                    + " headers: {'Content-Type': 'application/x-www-form-urlencoded'},"
                    + " body: 'action=replay&by=type&event_type=shipment.booked'})"
                    + ".then(r => done(r.status), e => done(String(e)));");
    assertThat(status).isEqualTo(401L);
    assertThat(count("SELECT retry_count FROM inbox.shipments WHERE event_id = 's0'")).isEqualTo(3);
  }
}
