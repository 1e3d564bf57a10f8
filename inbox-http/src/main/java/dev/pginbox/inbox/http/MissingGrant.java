package dev.pginbox.inbox.http;

import static dev.pginbox.inbox.http.Html.esc;

import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxManager;

/**
 * What to tell an operator when the database refused a page for lack of a privilege (SQLSTATE
 * 42501): what could not be read, the database's words, and the grant that is missing, addressed to
 * the console's login role. Reading every page needs what {@code inbox_reader} holds; the write
 * actions need {@code inbox_operator}, which reads as much (docs/security.md).
 *
 * @param what what the page could not read or do, in words ("the audit log of inbox orders")
 * @param inbox the inbox of the page, for the grant of that inbox alone; null on pages of every
 *     inbox
 * @param write whether the refusal came from a write action
 * @param role the login role to grant to, quoted as an identifier where it must be
 * @param refusal the database's message
 */
record MissingGrant(String what, String inbox, boolean write, String role, String refusal) {

  static final int STATUS = 403;

  private static final String INSUFFICIENT_PRIVILEGE = "42501";

  /** Whether {@code e} is the database refusing for lack of a privilege. */
  static boolean refused(InboxException e) {
    return e.sqlState().filter(INSUFFICIENT_PRIVILEGE::equals).isPresent();
  }

  static MissingGrant of(
      InboxManager manager, String what, String inbox, boolean write, InboxException e) {
    String role;
    try {
      role = manager.loginRole();
    } catch (RuntimeException unknown) {
      role = null;
    }
    String message = e.getMessage() == null ? "" : e.getMessage().lines().findFirst().orElse("");
    return new MissingGrant(what, inbox, write, role, message);
  }

  /** The group role whose privileges the refused page needs. */
  String groupRole() {
    return write ? "inbox_operator" : "inbox_reader";
  }

  /** {@code GRANT inbox_reader TO <role>;} */
  String groupGrant() {
    return "GRANT " + groupRole() + " TO " + roleIdentifier() + ";";
  }

  /** {@code SELECT inbox.grant_inbox('<inbox>', '<role>', 'reader');}, or null without an inbox. */
  String inboxGrant() {
    if (inbox == null) {
      return null;
    }
    return "SELECT inbox.grant_inbox("
        + literal(inbox)
        + ", "
        + (role == null ? "'<login role>'" : literal(role))
        + ", "
        + literal(write ? "operator" : "reader")
        + ");";
  }

  String text() {
    StringBuilder t =
        new StringBuilder(
            "The console's database role "
                + (role == null ? "(unknown)" : role)
                + (write ? " may not do " : " may not read ")
                + what
                + " ("
                + refusal
                + ").\nGrant it, as the owner of schema inbox:\n  "
                + groupGrant()
                + "\n");
    if (inbox != null) {
      t.append("or, for inbox ")
          .append(inbox)
          .append(" only:\n  ")
          .append(inboxGrant())
          .append('\n');
    }
    return t.toString();
  }

  String html() {
    String body =
        "<h1>Missing grant</h1><p class=\"warning\" id=\"missing-grant\">The console's database role "
            + "<code>"
            + esc(role == null ? "(unknown)" : role)
            + "</code>"
            + (write ? " may not do " : " may not read ")
            + esc(what)
            + ". The database said: <code>"
            + esc(refusal)
            + "</code></p><p>Grant it what <code>"
            + esc(groupRole())
            + "</code> holds, as the owner of schema <code>inbox</code>:</p><pre>"
            + esc(groupGrant())
            + "</pre>"
            + (inbox == null
                ? "<p>or one inbox at a time with <code>inbox.grant_inbox</code> (docs/security.md).</p>"
                : "<p>or, for inbox "
                    + esc(inbox)
                    + " only:</p><pre>"
                    + esc(inboxGrant())
                    + "</pre>")
            + (write
                ? ""
                : "<p>A console with write actions needs <code>inbox_operator</code> (or"
                    + " <code>'operator'</code>) instead: it reads as much and may replay, discard"
                    + " and purge.</p>");
    return Html.page("missing grant", body);
  }

  /** Always quoted: right for every name, keywords and capitals included. */
  private String roleIdentifier() {
    return role == null ? "<login role>" : "\"" + role.replace("\"", "\"\"") + "\"";
  }

  private static String literal(String value) {
    return "'" + value.replace("'", "''") + "'";
  }
}
