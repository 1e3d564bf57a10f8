package dev.pginbox.inbox.http.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import dev.pginbox.inbox.testsupport.StalledConnections;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BoundedHttpServerTest {

  private static final Duration ANSWER = Duration.ofSeconds(1);
  private static final Duration CLOSED = Duration.ofSeconds(15);

  private BoundedHttpServer server;

  private InetSocketAddress start(HttpLimits limits) throws IOException {
    server =
        BoundedHttpServer.create(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), limits, "test-http");
    server.createContext("/", BoundedHttpServerTest::echo);
    server.start();
    return server.getAddress();
  }

  private static void echo(HttpExchange exchange) throws IOException {
    byte[] body = exchange.getRequestBody().readAllBytes();
    byte[] answer =
        (exchange.getRequestMethod() + " " + exchange.getRequestURI() + " " + body.length)
            .getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(200, answer.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(answer);
    }
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void requests_are_read_without_workers_and_stalled_connections_close_at_the_header_timeout()
      throws Exception {
    InetSocketAddress address =
        start(
            HttpLimits.builder()
                .headerTimeout(Duration.ofSeconds(2))
                .maxWaitingPerAddress(1000)
                .maxConnections(1000)
                .threads(1)
                .build());
    try (StalledConnections stalled = StalledConnections.open(address, 64, 64)) {
      // All 128 are open and waiting, and one worker thread still answers at once.
      assertThat(StalledConnections.status(address, "/health/live", ANSWER)).isEqualTo(200);
      await().atMost(CLOSED).until(() -> stalled.closedByServer() == stalled.count());
    }
  }

  @Test
  void one_address_keeps_at_most_its_quota_of_waiting_connections() throws Exception {
    InetSocketAddress address = start(HttpLimits.builder().maxWaitingPerAddress(8).build());
    InetAddress other = InetAddress.getByName("127.0.0.2");
    try (StalledConnections stalled = StalledConnections.open(address, other, 20, 0)) {
      await().atMost(CLOSED).until(() -> stalled.closedByServer() == 12);
      assertThat(StalledConnections.status(address, "/", ANSWER)).isEqualTo(200);
      // Its own newest connection is served too: the address's oldest makes room.
      assertThat(StalledConnections.status(address, other, "/", ANSWER)).isEqualTo(200);
      await().atMost(CLOSED).until(() -> stalled.closedByServer() == 13);
    }
  }

  @Test
  void at_the_connection_cap_the_longest_waiting_connection_makes_room() throws Exception {
    InetSocketAddress address =
        start(HttpLimits.builder().maxConnections(10).maxWaitingPerAddress(100).build());
    try (StalledConnections stalled = StalledConnections.open(address, 10, 0)) {
      assertThat(StalledConnections.status(address, "/", ANSWER)).isEqualTo(200);
      assertThat(stalled.closedByServer()).isEqualTo(1);
    }
  }

  @Test
  void oversized_heads_get_431_and_oversized_bodies_413_before_they_are_read() throws Exception {
    InetSocketAddress address =
        start(HttpLimits.builder().maxHeaderBytes(4096).maxBodyBytes(1000).build());
    String big = "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(8192) + "\r\n\r\n";
    assertThat(exchange(address, big)).startsWith("HTTP/1.1 431 ");
    String many = "GET / HTTP/1.1\r\nHost: x\r\n" + "X-A: b\r\n".repeat(101) + "\r\n";
    assertThat(exchange(address, many)).startsWith("HTTP/1.1 431 ");
    // Announced, never sent: the answer comes without waiting for a single body byte.
    String declared = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1073741824\r\n\r\n";
    assertThat(exchange(address, declared)).startsWith("HTTP/1.1 413 ");
    String fits = "POST /f HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n" + "b".repeat(1000);
    assertThat(exchange(address, fits)).startsWith("HTTP/1.1 200 ").endsWith("POST /f 1000");
  }

  @Test
  void a_client_that_does_not_read_its_answer_holds_the_worker_only_until_the_response_timeout()
      throws Exception {
    InetSocketAddress address =
        start(HttpLimits.builder().responseTimeout(Duration.ofSeconds(1)).threads(1).build());
    byte[] chunk = new byte[1024 * 1024];
    CountDownLatch workerFreed = new CountDownLatch(1);
    server.createContext(
        "/big",
        e -> {
          try {
            e.sendResponseHeaders(200, 0);
            try (OutputStream out = e.getResponseBody()) {
              for (int i = 0; i < 1024; i++) {
                out.write(chunk);
              }
            }
          } finally {
            workerFreed.countDown();
          }
        });
    try (Socket reader = new Socket()) {
      reader.setReceiveBufferSize(4096);
      reader.connect(address);
      reader.getOutputStream().write("GET /big HTTP/1.1\r\nHost: x\r\n\r\n".getBytes());
      // It never reads: the one worker writes into a full socket until the deadline cuts the
      // connection, and is then free for the next client. (A request sent meanwhile would wait for
      // the worker on a deadline of its own, a few milliseconds behind this one: a race.)
      assertThat(workerFreed.await(30, TimeUnit.SECONDS))
          .as("the worker left the stalled answer")
          .isTrue();
      assertThat(StalledConnections.status(address, "/", CLOSED)).isEqualTo(200);
    }
  }

  @Test
  void requests_a_proxy_might_read_differently_are_refused() throws Exception {
    InetSocketAddress address = start(HttpLimits.DEFAULTS);
    assertThat(exchange(address, "GET / HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 400 ");
    assertThat(exchange(address, "GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n"))
        .startsWith("HTTP/1.1 400 ");
    assertThat(
            exchange(
                address,
                "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"))
        .startsWith("HTTP/1.1 411 ");
    assertThat(
            exchange(
                address,
                "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"))
        .startsWith("HTTP/1.1 400 ");
  }

  @Test
  void handlers_of_the_jdk_server_run_unchanged() throws Exception {
    InetSocketAddress address = start(HttpLimits.DEFAULTS);
    server.createContext(
        "/chunked",
        e -> {
          e.getResponseHeaders().set("X-Mine", "yes");
          e.sendResponseHeaders(201, 0);
          try (OutputStream out = e.getResponseBody()) {
            out.write("part one, ".getBytes(StandardCharsets.UTF_8));
            out.write("part two".getBytes(StandardCharsets.UTF_8));
          }
        });
    HttpClient client = HttpClient.newHttpClient();
    String base = "http://127.0.0.1:" + address.getPort();
    HttpResponse<String> chunked =
        client.send(
            HttpRequest.newBuilder(URI.create(base + "/chunked/x")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(chunked.statusCode()).isEqualTo(201);
    assertThat(chunked.headers().firstValue("X-Mine")).hasValue("yes");
    assertThat(chunked.body()).isEqualTo("part one, part two");
    HttpResponse<String> posted =
        client.send(
            HttpRequest.newBuilder(URI.create(base + "/echo?a=1"))
                .POST(HttpRequest.BodyPublishers.ofString("hello"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(posted.body()).isEqualTo("POST /echo?a=1 5");
  }

  /** Sends {@code request} as it is and returns all the server answers before it closes. */
  private static String exchange(InetSocketAddress address, String request) throws IOException {
    try (Socket socket = new Socket(address.getAddress(), address.getPort())) {
      socket.setSoTimeout((int) CLOSED.toMillis());
      OutputStream out = socket.getOutputStream();
      try {
        out.write(request.getBytes(StandardCharsets.ISO_8859_1));
      } catch (IOException e) {
        // the server may answer and close before it has read everything
      }
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
    }
  }
}
