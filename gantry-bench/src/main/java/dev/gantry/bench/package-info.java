/**
 * Benchmarks of Gantry's parts, each a named suite run by {@link dev.gantry.bench.BenchMain}
 * ({@code bin/gantry bench NAME [--quick]}). A suite runs its JMH classes through JMH's Java API in forked JVMs,
 * prints a table, and ends with one machine-readable {@code RESULT key=value ...} line that scripts can grep.
 */
package dev.gantry.bench;
