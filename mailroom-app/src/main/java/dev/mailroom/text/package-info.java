/**
 * Escaping for the text the mailroom produces: JSON for operators and clients, HTML for pages, one
 * line of plain text for the values shown in emails.
 */
package dev.mailroom.text;
