/**
 * Dispatch's self-protection (DESIGN.md, invariant 6): the {@link dev.gantry.server.dispatch.DispatchGate} that
 * pauses job starts, planning and workflow advances while the database is distressed, ramps them back, and obeys an
 * operator's hold; its settings and the operator's shared row.
 */
package dev.gantry.server.dispatch;
