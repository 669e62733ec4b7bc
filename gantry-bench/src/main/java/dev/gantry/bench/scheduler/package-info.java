/**
 * The {@code scheduler} benchmark ({@code bin/gantry bench scheduler [--quick]}): {@code Placement.place} driven by a
 * seeded churn simulation on a virtual clock ({@code Churn}, {@code Workload}, {@code ChurnConfig}), one call per
 * virtual second with the whole snapshot, timed on one thread; and Timefold Solver packing the running jobs of a few
 * of its snapshots offline ({@code SolverPacking}, with the planning model {@code BinPacking}, {@code PackedJob},
 * {@code Bin} and {@code PackingConstraints}, public because Timefold needs them to be). {@code SchedulerSuite}
 * prints the figures and the RESULT line. Single-threaded; nothing here is shared between runs.
 */
package dev.gantry.bench.scheduler;
