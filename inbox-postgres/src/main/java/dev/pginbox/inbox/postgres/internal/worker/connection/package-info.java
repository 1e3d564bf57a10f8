/**
 * The worker's connections: {@link
 * dev.pginbox.inbox.postgres.internal.worker.connection.WorkerConnection} (a connection with the
 * worker's prepared statements, in {@code .sql} files next to it named by {@link
 * dev.pginbox.inbox.postgres.internal.worker.connection.WorkerSql}, their values bound by name
 * through {@link dev.pginbox.inbox.postgres.internal.worker.connection.NamedStatement}), {@link
 * dev.pginbox.inbox.postgres.internal.worker.connection.DedicatedConnection} (a processor's own
 * transaction boundary), {@link
 * dev.pginbox.inbox.postgres.internal.worker.connection.ReconnectLoop} (the listener's and the
 * coordinator's long-lived connections), {@link
 * dev.pginbox.inbox.postgres.internal.worker.connection.StartupCheck}, and the reading of failures
 * ({@link dev.pginbox.inbox.postgres.internal.worker.connection.SqlStates}, {@link
 * dev.pginbox.inbox.postgres.internal.worker.connection.Standby}). Uses nothing of the worker but
 * what it reports ({@code events}).
 */
package dev.pginbox.inbox.postgres.internal.worker.connection;
