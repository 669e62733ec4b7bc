/**
 * Expansion of a loaded config into a plan: orbs, parameters and substitution, commands, executors, matrices,
 * logic statements, filters and the requires graph. Everything here reports problems rather than throwing, except
 * {@link dev.gantry.config.expand.Abort} for breached limits, which the compilation turns into a diagnostic.
 */
package dev.gantry.config.expand;
