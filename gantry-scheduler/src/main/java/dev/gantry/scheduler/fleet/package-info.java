/**
 * The fleet: clusters of build instances and how they grow and shrink with demand.
 *
 * <p>{@link dev.gantry.scheduler.fleet.FleetConfig} describes the clusters (ranked instance types, min, max), image
 * pins, the scale-in cool-down and how long a short type rests. {@link dev.gantry.scheduler.fleet.Autoscaler} is the
 * pure policy: snapshot, configuration, members and {@link dev.gantry.scheduler.fleet.TypeAvailability} in, a
 * {@link dev.gantry.scheduler.fleet.Plan} out; it packs demand with {@code Placement.place} itself so that the same
 * rules decide. {@link dev.gantry.scheduler.fleet.FleetController} owns the runtime state and carries plans out
 * through a {@link dev.gantry.scheduler.fleet.FleetProvider}: {@link dev.gantry.scheduler.fleet.LocalProvider}
 * (processes on this machine) or {@link dev.gantry.scheduler.fleet.SimulatedProvider} (a cloud on a virtual clock).
 *
 * <p>Only the providers do I/O, and only {@code LocalProvider} touches the operating system; everything else reads
 * time from the snapshot and randomness from an injected generator (DESIGN.md, invariant 8).
 */
package dev.gantry.scheduler.fleet;
