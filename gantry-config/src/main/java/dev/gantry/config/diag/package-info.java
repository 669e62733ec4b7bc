/** Diagnostics: positioned, collected problems that the compiler reports instead of throwing. */
package dev.gantry.config.diag;
