/**
 * The usage ledger (docs/usage.md): what each task attempt that ran on an agent is charged, written exactly once in
 * the transaction that ends the task ({@link dev.gantry.server.usage.UsageLedger#charge}); the per-organization
 * switch that turns charging off and the backfill that charges later by the same rule; monthly budgets and the
 * alerts their thresholds record; the reads that the API and the web UI's usage page share
 * ({@link dev.gantry.server.usage.UsageReads}); and the routes that report it all. The rule itself is one pure
 * function, {@link dev.gantry.server.usage.UsageRule}, of a task's record.
 */
package dev.gantry.server.usage;
