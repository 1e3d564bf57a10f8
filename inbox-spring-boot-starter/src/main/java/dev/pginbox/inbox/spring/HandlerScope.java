package dev.pginbox.inbox.spring;

import dev.pginbox.inbox.BatchHandler;
import dev.pginbox.inbox.MessageHandler;

/**
 * What a handler runs inside while the worker calls it: the application's Spring transaction
 * ({@link MessageScope}) or the claim's transaction exposed to Spring ({@link
 * ClaimTransactionBinding}).
 */
interface HandlerScope {

  // Its twin takes a BatchHandler; callers always pass a typed handler, never a bare lambda.
  @SuppressWarnings("overloads")
  MessageHandler around(MessageHandler handler, String inbox);

  @SuppressWarnings("overloads") // see the MessageHandler twin
  BatchHandler around(BatchHandler handler, String inbox);
}
