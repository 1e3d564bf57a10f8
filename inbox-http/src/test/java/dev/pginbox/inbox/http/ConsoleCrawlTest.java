package dev.pginbox.inbox.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.postgres.PostgresInbox;
import java.net.URI;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The console's own links, followed from {@code /} over an inbox as messy as production makes them:
 * every state a message can be in, aggregates blocked for each reason, times at ±infinity, and ids,
 * types, errors and worker names an attacker or a bug could have written.
 */
class ConsoleCrawlTest extends HttpTestSupport {

  /** Hostile text: markup, both quotes, URL syntax, percent signs, unicode, a long run. */
  static final List<String> HOSTILE =
      List.of(
          "<script>alert('x')</script>",
          "quote\"d & 'single'",
          "a/b?c=d#e f+g%41%",
          "ünïcødé ✓ 🚀 \u202Eevil",
          "back\\slash;semi:colon",
          "long-" + "x".repeat(1500));

  private static Connection claimer;
  private static InboxHttp.Running server;

  @BeforeAll
  static void messyDatabase() throws Exception {
    installDatabase("inbox_crawl");
    PostgresInbox messy = manager.createInbox("messy");
    manager.enableOrdering("messy");
    for (int i = 0; i < HOSTILE.size(); i++) {
      String h = HOSTILE.get(i);
      messy.send(NewMessage.of(h, h, "agg-" + h, "{\"v\": \"" + i + "\"}"));
      messy.send(NewMessage.of(h + "-next", h, "agg-" + h, null));
    }
    // Heads of hostile aggregates: dead with a hostile error, backing off, backing off forever.
    sql(
        "UPDATE inbox.messy SET retry_count = 3, error = event_id || ' refused 4711 ' || event_type"
            + " WHERE event_id IN ('<script>alert(''x'')</script>', 'quote\"d & ''single''')"
            + " OR event_id LIKE 'long-%' AND event_id NOT LIKE '%-next'");
    sql(
        "UPDATE inbox.messy SET retry_count = 1, error = 'timeout after 3000 ms <b>',"
            + " next_attempt_at = now() + interval '1 hour' WHERE event_id = 'a/b?c=d#e f+g%41%'");
    sql(
        "UPDATE inbox.messy SET retry_count = 1, error = 'never again', next_attempt_at = 'infinity'"
            + " WHERE event_id LIKE 'ünï%' AND event_id NOT LIKE '%-next'");
    // Failure histories with hostile errors and times at ±infinity, as an owner's UPDATE could
    // leave them; and one written by the failure path itself.
    sql(
        "UPDATE inbox.messy SET died_at = CASE WHEN retry_count >= 3 THEN 'infinity'::timestamptz END,"
            + " failing_since = '-infinity', last_failed_at = now(), attempts = jsonb_build_array("
            + " jsonb_build_object('attempt', 1, 'at', '-infinity', 'error', event_id),"
            + " jsonb_build_object('attempt', 2, 'at', 'infinity', 'error', error),"
            + " jsonb_build_object('attempt', 3, 'at', 'not a time', 'error', '<b>x</b>'))"
            + " WHERE retry_count >= 1");
    sql("SELECT inbox.mark_failed('messy', 'back\\slash;semi:colon', '<i>first</i> & last')");
    sql("UPDATE inbox.messy SET processed_at = '-infinity' WHERE event_id LIKE 'back%-next'");
    sql("UPDATE inbox.messy SET processed_at = 'infinity' WHERE event_id LIKE 'long-%-next'");

    // Over a page of dead letters, the oldest at -infinity, some without a type; outside the
    // aggregates, so that the blocked aggregates stay within one page.
    for (int i = 0; i < 60; i++) {
      messy.send(NewMessage.of("dead-" + i, i % 7 == 0 ? null : "order.placed", null, null));
    }
    sql(
        "UPDATE inbox.messy SET retry_count = 3,"
            + " error = 'customer ' || substr(event_id, 6) || ' <unknown> \"' || event_id || '\"'"
            + " WHERE event_id LIKE 'dead-%'");
    sql(
        "UPDATE inbox.messy SET received_at = '-infinity' WHERE event_id LIKE 'dead-%'"
            + " AND substr(event_id, 6)::int < 55");
    sql("UPDATE inbox.messy SET received_at = 'infinity' WHERE event_id = 'dead-59'");

    // A head claimed by a running transaction with a hostile application name.
    messy.send(NewMessage.of("claimed-head", "t", "agg-claimed", null));
    messy.send(NewMessage.of("claimed-next", "t", "agg-claimed", null));
    claimer = database.connect();
    claimer.setAutoCommit(false);
    try (Statement s = claimer.createStatement()) {
      s.execute("SET application_name = '<img src=x onerror=alert(1)>'");
      s.execute("SELECT 1 FROM inbox.messy WHERE event_id = 'claimed-head' FOR UPDATE");
    }

    // Workers and leases that say hostile things about themselves.
    sql(
        "INSERT INTO inbox.inbox_worker_registry (inbox_name, worker_id, details, application_name)"
            + " VALUES ('messy', '<script>w</script>', '{\"host\": \"<b>h</b>\", \"pid\": \"x\","
            + " \"assignment\": \"automatic\", \"partitions\": \"<i>\", \"concurrency\": 1e40}',"
            + " '\"app\"')");
    sql(
        "INSERT INTO inbox.inbox_partition_leases (inbox_name, partition_id, owner_id, lease_expires_at)"
            + " VALUES ('messy', 0, '<script>o</script>', 'infinity'), ('messy', 1, NULL, '-infinity')");

    // An audit log of more than a page, hostile actors and arguments, an inbox since dropped.
    jdbi.useHandle(
        h -> {
          h.execute("SET inbox.actor = '<script>mallory</script>'");
          h.execute(
              "SELECT inbox.replay_inbox_messages('messy', p_event_ids => ARRAY['<x>' || i, '\"'])"
                  + " FROM generate_series(1, 55) i");
        });
    manager.createInbox("gone");
    manager.dropInbox("gone", true);

    server = InboxHttp.builder(manager).build().start(loopback());
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
    if (claimer != null) {
      claimer.close();
    }
  }

  @Test
  void every_link_the_console_renders_answers_200() throws Exception {
    URI origin = URI.create("http://127.0.0.1:" + server.address().getPort());
    // The search results for every hostile id and aggregate, by both keys: only a form leads there.
    List<String> searches = new ArrayList<>();
    for (String h : HOSTILE) {
      searches.add("/inbox/messy/search?by=event_id&q=" + Paths.enc(h));
      searches.add("/inbox/messy/search?by=aggregate_id&q=" + Paths.enc("agg-" + h));
    }
    searches.add("/inbox/messy/search?by=payload&q=" + Paths.enc("v = \"3\""));
    List<ConsoleCrawler.Visit> visits =
        new ConsoleCrawler(origin, 500).crawl(searches.toArray(String[]::new));

    assertThat(visits.size()).as("bounded crawl").isLessThan(500);
    assertThat(visits)
        .as("URLs the console linked that did not answer 200")
        .filteredOn(v -> v.status() != 200)
        .isEmpty();
    // The crawl reached what it was built for: a message of each kind and the second pages.
    assertThat(visits)
        .extracting(v -> v.url().getRawPath() + "?" + v.url().getRawQuery())
        .anyMatch(u -> u.contains("/message/%3Cscript%3E"))
        .anyMatch(u -> u.contains("/message/long-x"))
        .anyMatch(u -> u.contains("/message/claimed-head"))
        .anyMatch(u -> u.contains("after_event_id="))
        .anyMatch(u -> u.contains("/audit?before="))
        .anyMatch(u -> u.contains("/search?by=aggregate_id&q=agg-%3Cscript%3E"))
        .anyMatch(u -> u.startsWith("/live.json"))
        .anyMatch(u -> u.startsWith("/inbox/messy/live.json"));
    // A dead head's page shows its failure history, escaped.
    assertThat(visits)
        .filteredOn(v -> v.url().getRawPath().contains("/message/%3Cscript%3E"))
        .filteredOn(v -> !v.url().getRawPath().endsWith("-next"))
        .isNotEmpty()
        .allSatisfy(
            v ->
                assertThat(v.body())
                    .contains("<h2>Failed attempts</h2>")
                    .contains("<dt>died at</dt>")
                    .contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; refused 4711")
                    .doesNotContain("<script>alert"));
    // Each search found its message: the results link to it.
    for (String h : HOSTILE) {
      assertThat(visits)
          .filteredOn(v -> v.url().getRawQuery() != null && v.url().getRawQuery().contains("by="))
          .filteredOn(v -> v.linkedFrom() == null)
          .anyMatch(
              v ->
                  v.body()
                      .contains("href=\"/inbox/messy/message/" + Html.esc(Paths.enc(h)) + "\""));
    }
  }
}
