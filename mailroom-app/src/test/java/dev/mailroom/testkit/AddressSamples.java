package dev.mailroom.testkit;

import java.util.List;

/**
 * Email values on both sides of the rule of {@code RecipientAddress}, shared by its unit test and
 * the schema's test: the collector and the CHECK constraint must agree on every one.
 */
public final class AddressSamples {

  /** Bare addresses: every one is a recipient, and the schema accepts it at sign-up. */
  public static final List<String> ACCEPTED =
      List.of(
          "a@x.test",
          "user@example.com",
          "first.last+tag@mail.example.co.uk",
          "o'brien@x.test",
          "!#$%&'*+/=?^_`{|}~-@x.test",
          "u@localhost",
          "u@x-y.test",
          "a".repeat(64) + "@x.test",
          "a@"
              + "b".repeat(63)
              + "."
              + "c".repeat(63)
              + "."
              + "d".repeat(63)
              + "."
              + "e".repeat(60));

  /**
   * Not one bare address (the first two are the review's): never a recipient, refused at sign-up.
   */
  public static final List<String> REFUSED =
      List.of(
          "",
          "\"w2@x.test\" <attacker@evil.test>",
          "w2 <attacker@evil.test>",
          "<attacker@evil.test>",
          "grp: a@evil.test, b@evil.test;",
          "a@evil.test, b@evil.test",
          "a@x.test (comment)",
          "a(comment)@x.test",
          "\"quoted local\"@x.test",
          "a@[127.0.0.1]",
          "a@x.test\r\nBcc: spy@evil.test",
          "a@x.test\n",
          "a b@x.test",
          " a@x.test",
          "a@x.test\t",
          "a..b@x.test",
          ".a@x.test",
          "a.@x.test",
          "a@x..test",
          "a@-x.test",
          "a@x-.test",
          "a@x.test.",
          "a",
          "@x.test",
          "a@",
          "a@b@x.test",
          "ü@x.test",
          "a@bücher.test",
          "a".repeat(65) + "@x.test",
          "a@" + "b".repeat(64) + ".test",
          "a@"
              + "b".repeat(63)
              + "."
              + "c".repeat(63)
              + "."
              + "d".repeat(63)
              + "."
              + "e".repeat(61));

  private AddressSamples() {}
}
