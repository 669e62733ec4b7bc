/**
 * The computed status page (issue 32): one row per component (the API, pipeline intake, job starts per resource class
 * and pool, job output, notifications, the database), each derived from live SLIs over a short and a long window, and
 * the history of its state changes as incidents. Nothing here is written by hand: an admin may add a note to an
 * incident, never hide one.
 *
 * <p>The flow: {@link dev.gantry.server.status.StatusPage} runs a background evaluation on every server every
 * {@link dev.gantry.server.status.StatusSettings#evaluateEvery()}: it adds this server's request counts to
 * {@code gantry.status_request_count} (which doubles as the probe that the database takes writes), reads the SLIs from
 * the database rows every server shares ({@code SliReader}), turns them into states by the pure rules in
 * {@code StateRules}, lets the one server that holds the {@code status-page} leadership open and close incidents
 * ({@code IncidentBook}), and keeps the resulting {@link dev.gantry.server.status.StatusReport} in memory. Requests
 * ({@link dev.gantry.server.status.StatusRoutes}) only read that report, so {@code /status.json} and
 * {@code /status.atom} answer while the database does not.
 *
 * <p>What belongs here: the model the pages render ({@code StatusReport}, {@code ComponentStatus}, {@code Incident},
 * {@code Sli}, {@code ComponentState}), the rules, the evaluation loop and its SQL, and the JSON and Atom forms. The
 * HTML page belongs to the web UI and renders the model.
 */
package dev.gantry.server.status;
