/**
 * The Gantry server: {@link dev.gantry.server.GantryServer} starts the HTTP API on its database, with its own schema
 * ({@code gantry}, migrated by Flyway) beside the durable queue's ({@code gantry_queue}).
 *
 * <p>A trigger is acknowledged only after the pipeline and its {@code pipeline-plan} message have committed in one
 * transaction; the plan builder consumes that message and stores the pipeline's workflows and jobs.
 *
 * <p>What belongs here: the server's lifecycle, its settings and the wiring of the HTTP routes. Each feature lives in
 * a package of its own: {@code auth} (API tokens), {@code project}, {@code pipeline}, {@code plan} (the plan
 * builder), {@code workflow} and {@code job} (reading them back); {@code http} holds what they share (reading JSON
 * bodies, the one mapper from failures to JSON errors).
 */
package dev.gantry.server;
