package dev.gantry.server.dst;

/**
 * An injected crash: thrown just before a statement runs, so the transaction around it rolls back as it would if the
 * server died there. Whoever made the call treats it as "no answer came".
 */
final class Crash extends RuntimeException {
    Crash(int statement) {
        super("injected crash before statement " + statement + " of the call", null, false, false);
    }

    /** True when {@code failure} is, or was caused by, an injected crash. */
    static boolean in(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof Crash) {
                return true;
            }
        }
        return false;
    }
}
