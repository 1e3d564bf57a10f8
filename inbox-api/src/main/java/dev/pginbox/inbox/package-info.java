/**
 * What an application needs to send and handle messages: {@link dev.pginbox.inbox.InboxManager}
 * (create and open inboxes), {@link dev.pginbox.inbox.Inbox} (send), {@link
 * dev.pginbox.inbox.InboxWorker} with a {@link dev.pginbox.inbox.MessageHandler} or {@link
 * dev.pginbox.inbox.BatchHandler} (handle), the messages, outcomes, options and exceptions. What an
 * operator needs (health, dead letters, replay, purge, the audit trail) is in {@link
 * dev.pginbox.inbox.operations}.
 */
package dev.pginbox.inbox;
