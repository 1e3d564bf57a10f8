/** {@code --demo}: the collector, an embedded SMTP server and the verification pages together. */
package dev.mailroom.demo;
