/**
 * Admission control on the HTTP API: per-caller rate limits answered 429 with {@code Retry-After}, and shedding of
 * low-priority requests while the server is overloaded, never of triggers or agents' calls.
 */
package dev.gantry.server.admission;
