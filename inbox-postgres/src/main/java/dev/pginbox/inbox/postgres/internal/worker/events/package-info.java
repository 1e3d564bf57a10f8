/**
 * What a worker reports: {@link dev.pginbox.inbox.postgres.internal.worker.events.WorkerEvents}
 * (meters, and the application's {@code WorkerListener}). The bottom of the worker runtime: uses
 * none of it.
 */
package dev.pginbox.inbox.postgres.internal.worker.events;
