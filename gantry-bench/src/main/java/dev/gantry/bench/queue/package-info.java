/**
 * The {@code queue} benchmark ({@code bin/gantry bench queue [--quick]}): gantry-queue next to its peers,
 * db-scheduler and JobRunr, on one embedded PostgreSQL with synchronous commit, one system after the other. This is
 * a harness that runs the libraries side by side, not JMH: each system sits behind {@link
 * dev.gantry.bench.queue.QueueSystem}, the workloads ({@code BurnDown}, {@code Steady}) drive it, {@code
 * Measurement} reads WAL and dead tuples from the server, and {@code Report} prints the tables and the RESULT line.
 */
package dev.gantry.bench.queue;
