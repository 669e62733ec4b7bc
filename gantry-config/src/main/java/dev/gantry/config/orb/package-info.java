/** Where registry orbs come from: Gantry cannot fetch them, so they are resolved from local files. */
package dev.gantry.config.orb;
