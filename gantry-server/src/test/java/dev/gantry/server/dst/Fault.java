package dev.gantry.server.dst;

/** What goes wrong with one step of an actor. */
enum Fault {
    NONE,
    /** The server crashes at a random statement of the call. */
    CRASH,
    /** The handler fails at a random statement, and the queue worker, alive, records the failure. */
    HANDLER_FAILS,
    /** The request is lost before it reaches the server. */
    LOST_REQUEST,
    /** The call commits, but its answer (or acknowledgement) is lost. */
    LOST_ANSWER,
    /** The same message is handled, or sent, twice. */
    DUPLICATE
}
