/** Escaping for the text the mailroom produces: JSON for operators and clients, HTML for pages. */
package dev.mailroom.text;
