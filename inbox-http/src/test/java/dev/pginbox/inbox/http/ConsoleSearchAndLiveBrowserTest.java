package dev.pginbox.inbox.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.postgres.PostgresInbox;
import dev.pginbox.inbox.testsupport.HeadlessChromium;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Search and the live counts in headless Chromium: the search box finds a message by each of its
 * three keys and shows hostile text as text; the counts, status and sparkline change while the page
 * stays the same document, and leave what the operator typed alone.
 */
class ConsoleSearchAndLiveBrowserTest extends HttpTestSupport {

  /** An event id and an aggregate id that would run script if the console did not escape them. */
  private static final String HOSTILE_ID = "<script>alert('id')</script>";

  private static final String HOSTILE_AGGREGATE = "\"><img src=x onerror=alert(1)>";

  private static InboxHttp.Running server;
  private static HeadlessChromium chromium;
  private static WebDriver browser;
  private static String origin;
  private static PostgresInbox orders;

  @BeforeAll
  static void start() throws Exception {
    assumeTrue(HeadlessChromium.available(), HeadlessChromium.SKIP_MESSAGE);
    installDatabase("inbox_console_search");
    orders = manager.createInbox("orders");
    for (int i = 0; i < 6; i++) {
      orders.send(
          NewMessage.of(
              "o" + i,
              "order.placed",
              "customer-" + (i % 2),
              "{\"customer\": {\"id\": " + (40 + i) + "}, \"note\": \"</pre><b>bold</b>\"}"));
    }
    orders.send(NewMessage.of(HOSTILE_ID, "order.placed", HOSTILE_AGGREGATE, "{}"));
    manager.createInbox("quiet").send(NewMessage.of("q0", "t", "q", "{}"));

    server = InboxHttp.builder(manager).build().start(loopback());
    origin = "http://127.0.0.1:" + server.address().getPort();
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

  private static Object script(String js) {
    return ((JavascriptExecutor) browser).executeScript(js);
  }

  private static void searchFromTheInboxPage(String by, String text) {
    browser.get(origin + "/inbox/orders");
    new Select(browser.findElement(By.name("by"))).selectByValue(by);
    WebElement box = browser.findElement(By.name("q"));
    box.sendKeys(text);
    box.submit();
    new WebDriverWait(browser, Duration.ofSeconds(10))
        .until(b -> b.getCurrentUrl().contains("/search?"));
  }

  private static List<String> foundIds() {
    return browser.findElements(By.cssSelector("table a[href*='/message/']")).stream()
        .map(WebElement::getText)
        .toList();
  }

  @Test
  void the_search_box_finds_a_message_by_event_id_and_links_to_its_page() {
    searchFromTheInboxPage("event_id", "o3");
    assertThat(foundIds()).containsExactly("o3");
    browser.findElement(By.linkText("o3")).click();
    new WebDriverWait(browser, Duration.ofSeconds(10))
        .until(b -> b.getCurrentUrl().endsWith("/inbox/orders/message/o3"));
    assertThat(browser.findElement(By.className("payload")).getText()).contains("\"id\" : 43");
  }

  @Test
  void the_search_box_finds_the_messages_of_an_aggregate() {
    searchFromTheInboxPage("aggregate_id", "customer-1");
    assertThat(foundIds()).containsExactly("o1", "o3", "o5");
    assertThat(browser.findElement(By.id("found")).getText()).contains("3 message(s)");
  }

  @Test
  void the_search_box_finds_messages_by_a_payload_key_path_or_a_json_object() {
    searchFromTheInboxPage("payload", "customer.id = 42");
    assertThat(foundIds()).containsExactly("o2");
    searchFromTheInboxPage("payload", "{\"customer\": {\"id\": 45}}");
    assertThat(foundIds()).containsExactly("o5");
    // The payload column shows markup in the payload as text.
    assertThat(browser.findElements(By.cssSelector("table b"))).isEmpty();
    assertThat(browser.findElement(By.tagName("table")).getText()).contains("<b>bold</b>");
  }

  @Test
  void hostile_search_text_is_shown_as_text_and_finds_its_message() {
    searchFromTheInboxPage("event_id", HOSTILE_ID);
    assertThat(foundIds()).containsExactly(HOSTILE_ID);
    assertThat(browser.findElement(By.name("q")).getAttribute("value")).isEqualTo(HOSTILE_ID);
    searchFromTheInboxPage("aggregate_id", HOSTILE_AGGREGATE);
    assertThat(foundIds()).containsExactly(HOSTILE_ID);
    assertThat(browser.findElement(By.id("found")).getText()).contains(HOSTILE_AGGREGATE);
    // Nothing the search echoed became markup: the page's only script is the console's, no image.
    assertThat(script("return document.scripts.length")).isEqualTo(1L);
    assertThat(browser.findElements(By.tagName("img"))).isEmpty();
  }

  @Test
  void bad_search_input_is_a_clear_error_on_the_page_never_a_server_error() throws Exception {
    searchFromTheInboxPage("payload", "{\"customer\": ");
    assertThat(browser.findElement(By.className("search-error")).getText())
        .contains("not valid JSON");
    searchFromTheInboxPage("payload", "customer");
    assertThat(browser.findElement(By.className("search-error")).getText())
        .contains("key.path = value");

    HttpClient client = HttpClient.newHttpClient();
    for (String query :
        List.of(
            "by=event_id&q=" + "x".repeat(5000),
            "by=payload&q=" + enc("{\"a\": \"" + "y".repeat(9000) + "\"}"),
            "by=payload&q=" + enc("[1, 2]"),
            "by=payload&q=" + enc("a..b = 1"),
            "by=nothing&q=x",
            "by=aggregate_id&q=" + enc("'; DROP TABLE inbox.orders; --"),
            "by=event_id&q=%25ZZ%3C%22",
            "by=event_id&q=" + "z".repeat(20_000))) {
      HttpResponse<String> response =
          client.send(
              HttpRequest.newBuilder(URI.create(origin + "/inbox/orders/search?" + query)).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(query).isIn(200, 400, 431);
      assertThat(response.body()).as(query).doesNotContain("<script>");
    }
    assertThat(count("SELECT count(*) FROM inbox.orders")).isEqualTo(7);
  }

  /**
   * The page polls its counts (every 10 s): after messages arrive and one is processed, the waiting
   * count, the dead count, the status and the sparkline's total change while the page is still the
   * document the test marked, and the text typed into the search box is still there.
   */
  @Test
  void the_inbox_page_counts_change_after_messages_arrive_without_a_reload() {
    PostgresInbox live = manager.createInbox("live");
    live.send(NewMessage.of("l0", "t", "a", "{}"));
    browser.get(origin + "/inbox/live");
    By waiting = By.cssSelector("[data-inbox='live'][data-live='waiting']");
    assertThat(browser.findElement(waiting).getText()).isEqualTo("1");
    script("window.sameDocument = true");
    browser.findElement(By.name("q")).sendKeys("typed, not sent");
    browser.findElement(By.tagName("h1")).click();

    for (int i = 1; i <= 3; i++) {
      live.send(NewMessage.of("l" + i, "t", "a", "{}"));
    }
    sql("UPDATE inbox.live SET processed_at = now() WHERE event_id = 'l0'");
    sql("UPDATE inbox.live SET retry_count = 3, error = 'no' WHERE event_id = 'l1'");
    new WebDriverWait(browser, Duration.ofSeconds(40))
        .until(b -> b.findElement(waiting).getText().equals("2"));

    assertThat(script("return window.sameDocument === true")).isEqualTo(true);
    assertThat(
            browser.findElement(By.cssSelector("[data-inbox='live'][data-live='dead']")).getText())
        .isEqualTo("1");
    assertThat(browser.findElement(By.cssSelector("[data-live='status'] .badge")).getText())
        .isEqualTo("degraded");
    assertThat(
            browser.findElement(By.cssSelector("[data-inbox='live'][data-live='total']")).getText())
        .isEqualTo("1/h");
    assertThat(browser.findElements(By.cssSelector("svg[data-inbox='live'] rect[height='20.0']")))
        .hasSize(1);
    assertThat(browser.findElement(By.name("q")).getAttribute("value"))
        .isEqualTo("typed, not sent");
  }

  @Test
  void the_overview_counts_change_without_a_reload() {
    browser.get(origin + "/");
    By quiet = By.cssSelector("[data-inbox='quiet'][data-live='waiting']");
    assertThat(browser.findElement(quiet).getText()).isEqualTo("1");
    script("window.sameDocument = true");
    manager.inbox("quiet").send(NewMessage.of("q1", "t", "q", "{}"));
    new WebDriverWait(browser, Duration.ofSeconds(40))
        .until(b -> b.findElement(quiet).getText().equals("2"));
    assertThat(script("return window.sameDocument === true")).isEqualTo(true);
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
