/**
 * Delivery by email: the templates ({@code MailTemplates}), SMTP and Amazon SES v2 ({@code
 * SesDelivery}, bulk templated sends), each returning one outcome per token so the collector
 * retries or dead-letters token by token.
 *
 * <p>SMTP, on the batch's processor thread: {@code SmtpDelivery} cuts the batch into shares (one on
 * the calling thread, the others on its sender threads) → {@code SmtpConnections} lends each share
 * a kept connection (checked with a NOOP) or opens one → {@code MailTemplates} renders and {@code
 * SmtpMessages} builds each email → one SMTP transaction per email → the outcomes, in the batch's
 * order, once every share is done → the connections go back to be kept (or are closed if they
 * broke).
 */
package dev.mailroom.delivery;
