/**
 * Policies that keep Gantry healthy when what it depends on is not (DESIGN.md, invariants 4 to 6), one copy of each:
 * a {@link dev.gantry.resilience.RetryBudget} with {@link dev.gantry.resilience.Backoff}, a
 * {@link dev.gantry.resilience.CircuitBreaker} per external destination, a {@link dev.gantry.resilience.Bulkhead}
 * that caps each destination's share of a shared worker pool, and the {@link dev.gantry.resilience.DistressPause}
 * that stops starting new work while the database is distressed and ramps back up.
 *
 * <p>They are pure: no I/O, time from an injected {@link java.time.InstantSource}, randomness from an injected
 * {@link java.util.random.RandomGenerator}, so the simulator (gantry-sim) runs the very classes the server, the
 * agent, the queue and the database supervisor do, on a virtual clock. A module of their own with no dependencies,
 * so that every other module may use them. Each class is thread-safe (its methods are synchronized), as worker
 * threads share one per caller or destination.
 */
package dev.gantry.resilience;
