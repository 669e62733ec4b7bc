package dev.gantry.server.admission;

import java.util.regex.Pattern;

/**
 * How much a request matters when the server must refuse some: under overload, {@link #LOW} requests are refused
 * first, and {@link #CRITICAL} ones never are. Pure.
 */
public enum RequestPriority {
    /** Triggers (API, forge webhooks, continuations), the agent protocol (job starts, heartbeats, results), health. */
    CRITICAL,
    /** Other writes (cancels, reruns, approvals, settings, also from pages), the metrics, the status feed. */
    NORMAL,
    /** Reads of the API, the web UI's pages and streams: what people look at, which can wait a few seconds. */
    LOW;

    private static final Pattern TRIGGER = Pattern.compile("/api/v2/project/[^/]+/[^/]+/[^/]+/pipeline/?");

    /** The priority of {@code method} on {@code path}. */
    public static RequestPriority of(String method, String path) {
        if (path.startsWith("/api/agent/") || path.startsWith("/webhooks/") || path.equals("/healthz")
                || method.equals("POST") && (TRIGGER.matcher(path).matches()
                || path.equals("/api/v2/pipeline/continue"))) {
            return CRITICAL;
        }
        if (path.equals("/metrics") || path.startsWith("/status.") || !method.equals("GET") && !method.equals("HEAD")) {
            return NORMAL;
        }
        return LOW;
    }
}
