/**
 * Placement of pending jobs onto build instances, as a pure function of a {@link dev.gantry.scheduler.Snapshot}
 * (pending jobs, instances with what they run, per-organisation limits, the time) to a
 * {@link dev.gantry.scheduler.Decision} (which job starts where, and why each other job waits). Nothing here does
 * I/O or reads a clock: the caller injects {@code now}, so the server and a simulator on a virtual clock run the same
 * code and tests are deterministic (DESIGN.md, invariant 8).
 *
 * <p>Flow: the caller builds a snapshot, calls {@link dev.gantry.scheduler.Placement#place}, carries out the
 * assignments and records the waiting reasons; the next snapshot reflects what it did. All types are immutable
 * values, safe to share between threads. Resource classes ({@link dev.gantry.scheduler.ResourceClasses}) are the
 * configuration that turns a job's class name into what it demands. The rules are written down in
 * {@code docs/scheduler.md}.
 */
package dev.gantry.scheduler;
