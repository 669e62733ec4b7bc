/**
 * Policies that keep the server healthy when what it depends on is not (DESIGN.md, invariants 4 to 6): a
 * {@link dev.gantry.scheduler.resilience.RetryBudget} with {@link dev.gantry.scheduler.resilience.Backoff}, a
 * {@link dev.gantry.scheduler.resilience.CircuitBreaker} per external destination, a
 * {@link dev.gantry.scheduler.resilience.Bulkhead} that caps each destination's share of a shared worker pool, and
 * the {@link dev.gantry.scheduler.resilience.DistressPause} that stops starting new work while the queue database is
 * distressed and ramps back up.
 *
 * <p>They are pure: no I/O, time from an injected {@link java.time.InstantSource}, randomness from an injected
 * {@link java.util.random.RandomGenerator}, so the simulator (gantry-sim) runs the very classes the server will, on
 * a virtual clock. They live in gantry-scheduler, not a module of their own, because the module rules let both the
 * server and the simulator depend on it and a module for five small classes would be overkill. Each class is
 * thread-safe (its methods are synchronized), as the server's worker threads share one per caller or destination.
 */
package dev.gantry.scheduler.resilience;
