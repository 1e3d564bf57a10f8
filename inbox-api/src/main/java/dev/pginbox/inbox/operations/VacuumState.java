package dev.pginbox.inbox.operations;

import java.time.Instant;

/**
 * What vacuum still owes an inbox's table ({@code inbox.inbox_vacuum}): a claimed message's index
 * entries stay in front of every claim until vacuum removes them, so many dead rows and an old last
 * vacuum mean slower claims (docs/operations.md, "PostgreSQL settings that matter").
 *
 * @param deadRows row versions vacuum has yet to remove (the server's statistics, which arrive
 *     within a second or so)
 * @param liveRows rows in the table, by the same statistics
 * @param lastVacuum the last vacuum, manual or automatic; null if none
 * @param autovacuumRuns how many times autovacuum vacuumed the table
 * @param autovacuum whether the server runs autovacuum at all
 * @param autovacuumNaptimeSeconds how often autovacuum looks at the database
 * @param autovacuumCostDelayMs autovacuum's throttle for this table (its own, else the server's)
 */
public record VacuumState(
    long deadRows,
    long liveRows,
    Instant lastVacuum,
    long autovacuumRuns,
    boolean autovacuum,
    long autovacuumNaptimeSeconds,
    double autovacuumCostDelayMs) {}
