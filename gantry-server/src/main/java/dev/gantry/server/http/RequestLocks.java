package dev.gantry.server.http;

import dev.gantry.queue.SqlStates;
import java.time.Duration;
import org.jdbi.v3.core.Handle;

/**
 * How long a request's transaction waits for a row lock: at most {@link #LOCK_TIMEOUT} each, so one project or
 * workflow whose row is held (a slow transaction, a stuck session) cannot make every request that needs it wait with a
 * pooled connection until the pool is gone. A request that waited that long fails with PostgreSQL's
 * {@value #LOCK_NOT_AVAILABLE}, which {@link ErrorResponses} answers with 503 and {@code Retry-After}; its transaction
 * rolls back, so nothing of it is written.
 *
 * <p>The transactions that lock a row a request names call {@link #bound} first: a trigger's (it takes its project's
 * next pipeline number; also a webhook's and a schedule's, which take the same path), a workflow's cancel, rerun and
 * approval, a job's cancel, a project's settings and a schedule's update. Background work (the plan builder, the
 * orchestrator) waits as long as it takes: the queue retries it, and no client waits.
 */
public final class RequestLocks {
    /** The longest a request waits for one lock. */
    public static final Duration LOCK_TIMEOUT = Duration.ofSeconds(5);
    /** The longest one statement of such a request runs (PostgreSQL's {@code query_canceled}, also a 503). */
    public static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(30);
    /** PostgreSQL's {@code lock_not_available}: a {@code lock_timeout} (or {@code NOWAIT}) ran out. */
    public static final String LOCK_NOT_AVAILABLE = "55P03";
    /** What a client told {@link #LOCK_NOT_AVAILABLE} waits before retrying. */
    public static final Duration RETRY_AFTER = Duration.ofSeconds(5);

    private RequestLocks() {
    }

    /**
     * Bounds each lock wait of the rest of {@code h}'s transaction by {@link #LOCK_TIMEOUT}, and each statement by
     * {@link #STATEMENT_TIMEOUT}; call it in one.
     */
    public static void bound(Handle h) {
        h.execute("SET LOCAL lock_timeout = '" + LOCK_TIMEOUT.toMillis() + "ms'; SET LOCAL statement_timeout = '"
                + STATEMENT_TIMEOUT.toMillis() + "ms'");
    }

    /** True when {@code failure} (or a cause) is a lock wait that ran out. */
    public static boolean timedOut(Throwable failure) {
        return LOCK_NOT_AVAILABLE.equals(SqlStates.sqlState(failure));
    }
}
