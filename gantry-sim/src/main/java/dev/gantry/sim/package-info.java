/**
 * The simulator: a deterministic discrete-event loop on a virtual clock that drives the real scheduler
 * ({@code Placement}) and fleet controller ({@code FleetController}, {@code Autoscaler}) through a scenario, beside
 * naive baseline policies ({@link dev.gantry.sim.FifoFirstFit}, {@link dev.gantry.sim.JobCountAutoscaler}). Where a
 * scenario declares a failing queue database ({@link dev.gantry.sim.QueueDatabase}) or a shared pool of workers for
 * calls out with failing endpoints ({@link dev.gantry.sim.OutboundPool}), Gantry answers with the server's resilience
 * policies from {@code dev.gantry.resilience} and the baseline with {@link dev.gantry.sim.FixedRetries} and
 * one first-come-first-served pool.
 *
 * <p>Entry points: {@link dev.gantry.sim.Simulator} reads and runs a {@link dev.gantry.sim.Scenario};
 * {@link dev.gantry.sim.Report} prints and writes the {@link dev.gantry.sim.Result}. Nothing here reads the wall
 * clock or starts a thread; every random draw comes from one seeded generator, so a scenario and a seed always give
 * byte-identical output. docs/simulator.md has the scenario format.
 */
package dev.gantry.sim;
