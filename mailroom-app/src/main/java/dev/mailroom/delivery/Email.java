package dev.mailroom.delivery;

import java.util.Objects;

/** One rendered email: a single recipient, a subject without line breaks, text and HTML bodies. */
public record Email(String to, String subject, String text, String html) {

  public Email {
    Objects.requireNonNull(to, "to");
    Objects.requireNonNull(subject, "subject");
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(html, "html");
    if (subject.indexOf('\r') >= 0 || subject.indexOf('\n') >= 0) {
      throw new IllegalArgumentException("a subject is one line");
    }
  }
}
