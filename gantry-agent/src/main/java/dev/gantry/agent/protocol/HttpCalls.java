package dev.gantry.agent.protocol;

import dev.gantry.resilience.RetryBudget;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodySubscribers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends one request with the agent's retry rules. {@link #retryable} is the one place that decides what is worth
 * retrying: a connection that failed or timed out, 5xx and 429, waiting {@code Retry-After} when the server gives
 * one. 401 throws {@link UnauthorizedException} at once; every other status is the caller's to judge. Quick retries
 * are budgeted per server ({@link RetryBudget}). Thread-safe.
 */
final class HttpCalls {
    private static final Logger LOG = LoggerFactory.getLogger(HttpCalls.class);

    private final String server;
    private final URI base;
    /** Registers; the registration answers the credential that every later call carries. */
    private final String registrationToken;
    private volatile String credential;
    private volatile RetryPolicy retry;
    private final RetryBudget budget;
    private volatile boolean budgetSpent;
    private final HttpClient http;

    HttpCalls(String server, URI base, String token, RetryPolicy retry, RetryBudget budget) {
        this.server = server;
        this.base = base;
        this.registrationToken = token;
        this.retry = retry;
        this.budget = budget;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /** The same server, client and budget, calling with {@code credential}. */
    private HttpCalls(HttpCalls from, String credential) {
        this.server = from.server;
        this.base = from.base;
        this.registrationToken = from.registrationToken;
        this.retry = from.retry;
        this.budget = from.budget;
        this.http = from.http;
        this.credential = credential;
    }

    String server() {
        return server;
    }

    /** These calls under another credential of this agent's: one an earlier run of it registered with. */
    HttpCalls as(String credential) {
        return new HttpCalls(this, credential);
    }

    /** The credential calls carry now; null before the agent registered. */
    String credential() {
        return credential;
    }

    /**
     * Waits at most {@code longest} between tries from now on: once the server has said how often it expects
     * heartbeats, no retry may wait longer than that, or a server back from a restart would find the agent's
     * leases run out while the agent was still backing off.
     */
    void capWaits(Duration longest) {
        RetryPolicy current = retry;
        if (longest.compareTo(current.cap()) < 0 && longest.isPositive()) {
            Duration initial = current.initial().compareTo(longest) < 0 ? current.initial() : longest;
            retry = new RetryPolicy(initial, longest, current.giveUpAfter());
        }
    }

    /** From now on, calls other than registering carry {@code credential}, the agent's own. */
    void authenticateAs(String credential) {
        this.credential = credential;
    }

    HttpRequest.Builder request(String path) {
        String bearer = path.equals("/register") || credential == null ? registrationToken : credential;
        return HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + bearer)
                .header("Accept", "application/json");
    }

    /**
     * Sends {@code request}, retrying transient failures until the policy gives up. With a {@code download} path,
     * a 200 body goes to that file; any other body is kept in memory for its message.
     */
    Reply send(String what, TaskRef task, HttpRequest request, Path download) throws InterruptedException {
        return send(what, task, request, download, retry.giveUpAfter());
    }

    /** {@link #send}, retrying for {@code patience} instead of the policy's give-up time. */
    Reply send(String what, TaskRef task, HttpRequest request, Path download, Duration patience)
            throws InterruptedException {
        RetryPolicy retry = this.retry;
        long start = System.nanoTime();
        budget.recordFirstAttempt();
        for (int attempt = 0; ; attempt++) {
            Reply reply = null;
            Exception failure = null;
            try {
                HttpResponse<byte[]> response = http.send(request, info ->
                        info.statusCode() == 200 && download != null
                                ? BodySubscribers.mapping(BodySubscribers.ofFile(download), p -> new byte[0])
                                : BodySubscribers.ofByteArray());
                reply = new Reply(what, response.statusCode(), response.body(), response.headers());
            } catch (IOException e) {
                failure = e;
            }
            if (reply != null && reply.status() == 401) {
                throw new UnauthorizedException(server);
            }
            if (reply != null && !retryable(reply.status())) {
                return reply;
            }
            Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
            String why = failure != null ? failure.toString() : "HTTP " + reply.status() + " " + reply.text();
            if (elapsed.compareTo(patience) >= 0) {
                throw new ServerUnavailableException(what + (task == null ? "" : " for task " + task) + " to "
                        + server + " failed after " + (attempt + 1) + " attempts in " + elapsed.toMillis()
                        + " ms; last: " + why, failure);
            }
            Duration delay = retryDelay(retry, attempt, reply == null ? null : retryAfter(reply.headers()));
            if (attempt == 2) {
                // the first failures are routine (a restart, a blip); by the third an operator wants to know
                LOG.warn("{} to {} keeps failing ({}); retrying for up to {} s", what, server, why,
                        patience.toSeconds());
            } else {
                LOG.debug("{} to {} failed ({}), retrying in {} ms", what, server, why, delay.toMillis());
            }
            Thread.sleep(delay);
        }
    }

    /** The backoff while the budget lasts, the slowest pace once it is spent; the first refusal is logged once. */
    private Duration retryDelay(RetryPolicy retry, int attempt, Duration retryAfter) {
        if (budget.tryRetry()) {
            budgetSpent = false;
            return retry.delay(attempt, retryAfter, ThreadLocalRandom.current());
        }
        if (!budgetSpent) {
            budgetSpent = true;
            LOG.warn("retry budget for {} spent (more than one retry per ten calls): retries wait up to {} ms each "
                    + "until calls succeed again", server, retry.cap().toMillis());
        }
        return retry.delayOverBudget(retryAfter, ThreadLocalRandom.current());
    }

    /** Whether a status is worth asking again: the server is busy or broken, not the request wrong. */
    static boolean retryable(int status) {
        return status >= 500 || status == 429 || status == 408;
    }

    /** Retry-After in seconds; an HTTP date or garbage counts as not given. */
    static Duration retryAfter(HttpHeaders headers) {
        return headers.firstValue("Retry-After").map(String::strip).filter(v -> v.matches("\\d{1,6}"))
                .map(v -> Duration.ofSeconds(Long.parseLong(v))).orElse(null);
    }

    /** A response: its status, body bytes (empty when streamed to a file) and headers. */
    record Reply(String what, int status, byte[] body, HttpHeaders headers) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        JsonNode json() {
            try {
                JsonNode node = HttpAgentServer.JSON.readTree(body);
                return node == null ? MissingNode.getInstance() : node;
            } catch (IOException e) {
                return MissingNode.getInstance();
            }
        }

        /** The server's own words when it answered with a JSON error, else the body as it came. */
        ProtocolException unexpected(String call) {
            return new ProtocolException(call, status, json().path("message").asText(text()));
        }
    }
}
