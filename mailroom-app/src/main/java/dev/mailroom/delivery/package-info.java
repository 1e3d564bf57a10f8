/**
 * Delivery by email: the templates ({@code MailTemplates}), SMTP ({@code SmtpDelivery}, one
 * connection per batch) and Amazon SES v2 ({@code SesDelivery}, bulk templated sends), each
 * returning one outcome per token so the collector retries or dead-letters token by token.
 */
package dev.mailroom.delivery;
