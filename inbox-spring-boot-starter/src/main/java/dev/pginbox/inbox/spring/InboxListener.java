package dev.pginbox.inbox.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a bean method the handler of an inbox; the application context then runs a worker for the
 * inbox (options under {@code inbox.inboxes.NAME.worker.*}) that starts and stops with it.
 *
 * <p>Parameters are matched by type: {@link dev.pginbox.inbox.InboxMessage} (the message), {@link
 * dev.pginbox.inbox.InboxTransaction}, and at most one other parameter, which receives the payload
 * read from JSON with the application's Jackson mapper (a record, a {@code Map}, a {@code
 * JsonNode}...). A method with a {@code List<InboxMessage>} parameter handles whole batches.
 *
 * <p>Return {@code void} (processed), an {@link dev.pginbox.inbox.Outcome}, or for a batch a {@link
 * dev.pginbox.inbox.BatchResult}. A thrown exception is a failed attempt: the message is retried
 * with backoff and becomes a dead letter after the inbox's max retries.
 *
 * <p>The method runs in the transaction that claimed the message: {@code JdbcTemplate}, {@code
 * JdbcClient}, Spring Data repositories and {@code @Transactional} methods called from it join that
 * transaction, so their writes and the processed mark commit or roll back together.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface InboxListener {

  /** The inbox to consume. */
  String inbox();
}
