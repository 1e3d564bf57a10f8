/**
 * Escaping for the text the mailroom produces: JSON for operators and clients, one line of plain
 * text for the values shown in emails. HTML is escaped by inbox-http's {@code HtmlText}, the
 * console's escaping.
 */
package dev.mailroom.text;
