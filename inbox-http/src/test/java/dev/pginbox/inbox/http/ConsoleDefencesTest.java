package dev.pginbox.inbox.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pginbox.inbox.NewMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The console's smaller defences: logins, Host names, cross-site forms, flash texts, files. */
class ConsoleDefencesTest extends HttpTestSupport {

  private static final String FORM = "action=replay&by=ids&id=d1";

  @BeforeAll
  static void setUp() {
    installDatabase("inbox_http_defences");
    manager.createInbox("defended");
    manager.inbox("defended").send(NewMessage.of("d1", "t", "a", null));
    sql("UPDATE inbox.defended SET retry_count = 3, error = 'e'");
  }

  private static InboxHttp.Running console() throws IOException {
    return InboxHttp.builder(manager)
        .credentials(operatorCredentials())
        .writeActions(true)
        .build()
        .start(loopback());
  }

  @Test
  void failed_logins_are_throttled_per_client_and_per_user() throws Exception {
    try (InboxHttp.Running server = console()) {
      InetAddress first = InetAddress.getByName("127.0.0.2");
      for (int i = 0; i < 10; i++) {
        assertThat(confirm(server, first, InboxHttpTest.basic(USER, "wrong-password-" + i)))
            .startsWith("HTTP/1.1 401");
      }
      // That client is refused for the rest of the window, even with the right password ...
      assertThat(confirm(server, first, InboxHttpTest.basic(USER, PASSWORD)))
          .startsWith("HTTP/1.1 429");
      // ... others are not, until guesses at one user from many addresses add up.
      InetAddress second = InetAddress.getByName("127.0.0.3");
      assertThat(confirm(server, second, InboxHttpTest.basic(USER, PASSWORD)))
          .startsWith("HTTP/1.1 200");
      for (int i = 0; i < 10; i++) {
        InetAddress guesser = InetAddress.getByName("127.0.1." + (i + 1));
        confirm(server, guesser, InboxHttpTest.basic(USER, "wrong-password-" + i));
      }
      assertThat(confirm(server, second, InboxHttpTest.basic(USER, PASSWORD)))
          .startsWith("HTTP/1.1 429");
    }
  }

  @Test
  void confirm_refuses_a_form_posted_from_another_site() throws Exception {
    try (InboxHttp.Running server = console()) {
      String auth = "Authorization: " + InboxHttpTest.basic(USER, PASSWORD) + "\r\n";
      assertThat(confirm(server, auth + "Origin: http://evil.example\r\n"))
          .startsWith("HTTP/1.1 403");
      assertThat(confirm(server, auth + "Sec-Fetch-Site: cross-site\r\n"))
          .startsWith("HTTP/1.1 403");
      assertThat(
              confirm(server, auth + "Origin: http://127.0.0.1\r\nSec-Fetch-Site: same-origin\r\n"))
          .startsWith("HTTP/1.1 200");
    }
  }

  @Test
  void the_flash_banner_shows_only_texts_the_server_chose() throws Exception {
    try (InboxHttp.Running server = console()) {
      String page =
          request(
              server,
              InetAddress.getLoopbackAddress(),
              "GET /inbox/defended?done=Your%20session%20expired%2C%20call%20555-0100 HTTP/1.1\r\n"
                  + "Host: 127.0.0.1\r\n\r\n");
      assertThat(page).startsWith("HTTP/1.1 200").doesNotContain("call 555-0100");
    }
  }

  @Test
  void a_host_name_that_is_not_the_servers_is_refused() throws Exception {
    try (InboxHttp.Running server = InboxHttp.builder(manager).build().start(loopback())) {
      // DNS rebinding: evil.example resolves to 127.0.0.1 and the browser sends its name.
      assertThat(get(server, "evil.example")).startsWith("HTTP/1.1 421");
      assertThat(get(server, "localhost:" + server.address().getPort())).startsWith("HTTP/1.1 200");
      assertThat(get(server, "127.0.0.1")).startsWith("HTTP/1.1 200");
    }
  }

  @Test
  void a_users_file_that_others_may_read_is_refused(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("users");
    Files.writeString(file, "alice:" + PASSWORD + "\n");
    Map<String, String> env = Map.of(Credentials.USERS_FILE_ENV, file.toString());
    for (String mode : new String[] {"rw-r--r--", "rw-r-----", "rw-rw----"}) {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
      assertThatThrownBy(() -> Credentials.fromEnvironment(env))
          .as(mode)
          .hasMessageContaining("chmod 600")
          .hasMessageNotContaining(PASSWORD);
    }
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    assertThat(Credentials.fromEnvironment(env).users()).containsOnlyKeys("alice");
  }

  private static String get(InboxHttp.Running server, String host) throws IOException {
    return request(
        server,
        InetAddress.getLoopbackAddress(),
        "GET /health/live HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
  }

  private static String confirm(InboxHttp.Running server, InetAddress from, String authorization)
      throws IOException {
    return request(server, from, post("Authorization: " + authorization + "\r\n"));
  }

  private static String confirm(InboxHttp.Running server, String headers) throws IOException {
    return request(server, InetAddress.getLoopbackAddress(), post(headers));
  }

  private static String post(String headers) {
    return "POST /inbox/defended/confirm HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + headers
        + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: "
        + FORM.length()
        + "\r\nConnection: close\r\n\r\n"
        + FORM;
  }

  /** One request from {@code from}, and the whole answer. */
  private static String request(InboxHttp.Running server, InetAddress from, String request)
      throws IOException {
    try (Socket socket = new Socket()) {
      socket.bind(new InetSocketAddress(from, 0));
      socket.connect(server.address());
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(request.getBytes(StandardCharsets.UTF_8));
      out.flush();
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
