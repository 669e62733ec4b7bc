/**
 * Where registry orbs come from: Gantry cannot fetch them, so they are resolved from local files. Also how an orb's
 * unpacked source ({@code src/@orb.yml}, {@code commands/}, …) is packed into the one file a registry publishes
 * ({@link dev.gantry.config.orb.OrbPacker}).
 */
package dev.gantry.config.orb;
