package dev.gantry.server.http;

import dev.gantry.server.storage.StorageUnavailableException;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one mapper from a failed request to its answer, JSON with a {@code "message"} for the API (the web UI shows
 * the same answer as a page):
 * <ul>
 *   <li>{@link ApiException}: its status and message, and {@code "field"} when one field is at fault; with
 *       {@code Retry-After} in seconds when it says (429 over a rate limit, 503 while overloaded);</li>
 *   <li>Javalin's own (no such route 404, wrong method 405, ...): their status, with a message of ours;</li>
 *   <li>the database unable to take the request ({@link DatabaseFailures}), or a lock the request needs held past
 *       {@link RequestLocks#LOCK_TIMEOUT}: 503 with {@code Retry-After} in seconds;</li>
 *   <li>the blob storage unable to take it ({@link StorageUnavailableException}, e.g. the S3 bucket does not
 *       answer): 503 with {@code Retry-After: }{@value #STORAGE_RETRY_AFTER_SECONDS};</li>
 *   <li>anything else: 500 with an {@code "error_id"} that is also in the log beside the stack trace, and nothing of
 *       the cause (no SQL text, no exception message) in the answer.</li>
 * </ul>
 * Thread-safe and stateless.
 */
public final class ErrorResponses {
    private static final Logger LOG = LoggerFactory.getLogger(ErrorResponses.class);

    /** How long a client waits before retrying a request the blob storage could not take. */
    static final int STORAGE_RETRY_AFTER_SECONDS = 5;

    /**
     * What a failed request is answered: its status, a message for people, and the one field at fault or the error id
     * (the {@code "field"} or {@code "error_id"} of the JSON). {@link #answer} decides it once; the API sends it as
     * JSON ({@link #handle}), the web UI as a page.
     */
    public record Answer(int status, String message, String key, String value) {
        Map<String, String> body() {
            Map<String, String> body = new LinkedHashMap<>();
            body.put("message", message);
            if (key != null && value != null) {
                body.put(key, value);
            }
            return body;
        }
    }

    /** Answers {@code ctx} for {@code failure} as JSON; register it as the exception handler for {@link Exception}. */
    public void handle(Exception failure, Context ctx) {
        Answer answer = answer(failure, ctx);
        Json.respond(ctx, answer.status(), answer.body());
    }

    /** Logs {@code failure}, sets the headers its answer needs ({@code Retry-After}, ...) and returns the answer. */
    public Answer answer(Exception failure, Context ctx) {
        if (failure instanceof StorageUnavailableException storage) {
            LOG.warn("{} {}: the blob storage is unavailable, answered 503 ({})", ctx.method(), ctx.path(),
                    storage.getMessage());
            ctx.header("Retry-After", Integer.toString(STORAGE_RETRY_AFTER_SECONDS));
            return new Answer(503, "the blob storage cannot take this request now; retry after "
                    + STORAGE_RETRY_AFTER_SECONDS + " seconds", null, null);
        }
        if (failure instanceof ApiException api) {
            if (api.status() == 401) {
                ctx.header("WWW-Authenticate", "Bearer");
            }
            api.retryAfter().ifPresent(wait -> ctx.header("Retry-After", Long.toString(retryAfterSeconds(wait))));
            return new Answer(api.status(), api.getMessage(), "field", api.field().orElse(null));
        }
        if (failure instanceof HttpResponseException http) {
            return new Answer(http.getStatus(), javalinMessage(http, ctx), null, null);
        }
        Optional<Duration> retryAfter = DatabaseFailures.retryAfter(failure);
        if (retryAfter.isPresent()) {
            long seconds = retryAfterSeconds(retryAfter.get());
            LOG.warn("{} {}: {}, answered 503 ({})", ctx.method(), ctx.path(), RequestLocks.timedOut(failure)
                    ? "a lock wait ran out" : "the database is unavailable", rootCause(failure));
            ctx.header("Retry-After", Long.toString(seconds));
            String after = "retry after " + seconds + (seconds == 1 ? " second" : " seconds");
            return new Answer(503, RequestLocks.timedOut(failure)
                    ? "another request holds a lock this one needs (on the project, workflow or job it names) "
                    + "and did not release it within " + RequestLocks.LOCK_TIMEOUT.toSeconds() + " seconds; "
                    + "nothing was written; " + after
                    : "the database cannot take this request now; " + after, null, null);
        }
        String errorId = UUID.randomUUID().toString();
        LOG.error("{} {} failed, error id {}", ctx.method(), ctx.path(), errorId, failure);
        return new Answer(500, "internal server error; the server log has the details under error id " + errorId,
                "error_id", errorId);
    }

    /** {@code wait} in whole seconds for {@code Retry-After}, rounded up, at least 1. */
    public static long retryAfterSeconds(Duration wait) {
        return Math.max(1, (wait.toMillis() + 999) / 1000);
    }

    /** The innermost cause, which says what happened (a refused connection) without the statement around it. */
    private static String rootCause(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.toString();
    }

    private static String javalinMessage(HttpResponseException http, Context ctx) {
        return switch (http.getStatus()) {
            case 404 -> "no such endpoint: " + ctx.method() + " " + ctx.path() + "; docs/server.md lists the API";
            case 405 -> "method " + ctx.method() + " is not allowed on " + ctx.path();
            default -> http.getMessage();
        };
    }
}
