package dev.mailroom.delivery;

import dev.mailroom.config.ConfigException;
import dev.mailroom.output.OutputRecord;
import dev.mailroom.output.TokenAction;
import dev.mailroom.text.PlainText;
import dev.pginbox.inbox.http.HtmlText;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The activation and password-recovery emails: for each action a subject, a plain-text and an HTML
 * template ({@code activation.subject}, {@code activation.txt}, {@code activation.html}, and the
 * same with {@code password_recovery}), built in or replaced file by file from
 * MAILROOM_TEMPLATE_DIR. Placeholders: {@code {{login}}}, {@code {{email}}}, {@code {{link}}},
 * {@code {{code}}}. Every value is first made one line ({@link PlainText#oneLine}: no line break,
 * control character, line separator or bidirectional override), in the subject, both bodies and the
 * data handed to SES templates; then it is HTML-escaped in HTML. A login like {@code <script>} or
 * one with CRLF therefore adds no markup, header, line or reordering to any email.
 */
public final class MailTemplates {

  private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{(login|email|link|code)}}");
  private static final int MAX_TEMPLATE_BYTES = 64 * 1024;

  private record Parts(Template subject, Template text, Template html) {}

  /**
   * A template cut once at its placeholders, so rendering an email appends pieces instead of
   * running a regular expression over every template for every token.
   *
   * @param literals the text around the placeholders: one more than {@code names}
   */
  private record Template(List<String> literals, List<String> names) {

    static Template parse(String text) {
      List<String> literals = new ArrayList<>();
      List<String> names = new ArrayList<>();
      Matcher m = PLACEHOLDER.matcher(text);
      int end = 0;
      while (m.find()) {
        literals.add(text.substring(end, m.start()));
        names.add(m.group(1));
        end = m.end();
      }
      literals.add(text.substring(end));
      return new Template(List.copyOf(literals), List.copyOf(names));
    }

    String fill(Map<String, String> values, UnaryOperator<String> escape) {
      StringBuilder out = new StringBuilder(literals.get(0).length() * 2 + 128);
      out.append(literals.get(0));
      for (int i = 0; i < names.size(); i++) {
        out.append(escape.apply(values.get(names.get(i)))).append(literals.get(i + 1));
      }
      return out.toString();
    }
  }

  private final Map<TokenAction, Parts> parts = new EnumMap<>(TokenAction.class);
  private final String linkBaseUrl;

  /**
   * @param templateDir the directory whose files replace the built-in ones, or null
   */
  public MailTemplates(String linkBaseUrl, Path templateDir) {
    this.linkBaseUrl = linkBaseUrl;
    for (TokenAction action : TokenAction.values()) {
      String base = action.dbName();
      parts.put(
          action,
          new Parts(
              Template.parse(load(templateDir, base + ".subject").strip()),
              Template.parse(load(templateDir, base + ".txt")),
              Template.parse(load(templateDir, base + ".html"))));
    }
  }

  /** The link of a token: {@code <base>/activate?token=...} or {@code <base>/recover?token=...}. */
  public String link(TokenAction action, String token) {
    return linkBaseUrl + action.path() + "?token=" + token;
  }

  public Email render(OutputRecord record) {
    Map<String, String> values =
        Map.of(
            "login", PlainText.oneLine(record.login()),
            "email", PlainText.oneLine(record.email()),
            "link", link(record.action(), record.token()),
            "code", PlainText.oneLine(record.code()));
    Parts p = parts.get(record.action());
    return new Email(
        record.email(),
        p.subject().fill(values, v -> v),
        p.text().fill(values, v -> v),
        p.html().fill(values, HtmlText::escape));
  }

  /** The values of a record for SES templates, which fill them in themselves. */
  public Map<String, String> values(OutputRecord record) {
    return Map.of(
        "login", PlainText.oneLine(record.login()),
        "email", PlainText.oneLine(record.email()),
        "link", link(record.action(), record.token()),
        "code", PlainText.oneLine(record.code()),
        "token", record.token());
  }

  private static String load(Path dir, String name) {
    if (dir != null) {
      Path file = dir.resolve(name);
      if (Files.isRegularFile(file)) {
        try {
          if (Files.size(file) > MAX_TEMPLATE_BYTES) {
            throw new ConfigException(
                "template " + file + " is over " + MAX_TEMPLATE_BYTES + " bytes");
          }
          return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
          throw new ConfigException("cannot read template " + file + ": " + e.getMessage());
        }
      }
    }
    try (InputStream in = MailTemplates.class.getResourceAsStream("templates/" + name)) {
      if (in == null) {
        throw new IllegalStateException("missing built-in template " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
