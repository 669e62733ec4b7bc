package dev.gantry.server.admission;

import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.ErrorResponses;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

/**
 * Admission control in front of every route (a before-handler, registered first): each caller's requests pass a
 * {@link RateLimiter} (per API token, per agent credential, per web session, else per client address), over which
 * they are answered 429 with {@code Retry-After}; and while the server is overloaded (too many requests under way, or
 * requests queuing for the main pool's connections) {@link RequestPriority#LOW} requests are answered 503 with
 * {@code Retry-After}, so that triggers and agents keep the capacity. Forge webhooks and the health check are not
 * rate-limited: a forge does not retry a refused delivery, and a load balancer must see the server. Thread-safe.
 */
public final class AdmissionControl implements Handler {
    /** How long a request refused for overload is told to wait. */
    static final Duration SHED_RETRY_AFTER = Duration.ofSeconds(2);
    private static final String COUNTED = "gantry.admission.counted";
    private static final String SESSION_COOKIE = "gantry_session";

    private final AdmissionSettings settings;
    private final RateLimiter limiter;
    private final IntSupplier poolWaiters;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Counter limited;
    private final Counter shed;

    /**
     * @param poolWaiters requests waiting for a connection of the main database pool now
     * @param registry    where the refusals and the overload are reported
     */
    public AdmissionControl(AdmissionSettings settings, IntSupplier poolWaiters, InstantSource clock,
                            MeterRegistry registry) {
        this.settings = settings;
        this.limiter = new RateLimiter(clock);
        this.poolWaiters = poolWaiters;
        this.limited = Counter.builder("gantry.admission.refused").tag("reason", "rate_limited")
                .description("requests refused by admission control").register(registry);
        this.shed = Counter.builder("gantry.admission.refused").tag("reason", "overloaded")
                .description("requests refused by admission control").register(registry);
        Gauge.builder("gantry.admission.in.flight", inFlight, AtomicInteger::get)
                .description("requests under way that count towards overload").register(registry);
        Gauge.builder("gantry.admission.overloaded", this, a -> a.overloaded() ? 1 : 0)
                .description("1 while the server refuses low-priority requests").register(registry);
    }

    @Override
    public void handle(Context ctx) {
        String path = ctx.path();
        RequestPriority priority = RequestPriority.of(ctx.method().name(), path);
        rateLimit(ctx, path);
        if (priority == RequestPriority.LOW && overloaded()) {
            shed.increment();
            throw ApiException.unavailable("the server is overloaded and answers triggers, agents and changes "
                    + "first; retry after " + SHED_RETRY_AFTER.toSeconds() + " seconds", SHED_RETRY_AFTER);
        }
        // Long polls and streams wait rather than work, so they do not count towards overload.
        if (priority != RequestPriority.CRITICAL && !streams(ctx)) {
            inFlight.incrementAndGet();
            ctx.attribute(COUNTED, true);
        }
    }

    /** Called once a request has been answered (the request logger): it no longer counts as under way. */
    public void finished(Context ctx) {
        if (Boolean.TRUE.equals(ctx.attribute(COUNTED))) {
            ctx.attribute(COUNTED, false);
            inFlight.decrementAndGet();
        }
    }

    /** Whether the server refuses low-priority requests now. */
    public boolean overloaded() {
        return inFlight.get() >= settings.shedInFlight() || poolWaiters.getAsInt() >= settings.shedPoolWaiters();
    }

    private void rateLimit(Context ctx, String path) {
        if (path.startsWith("/webhooks/") || path.equals("/healthz")) {
            return;
        }
        String credential = Optional.ofNullable(ctx.header("Circle-Token")).orElse(ctx.header("Authorization"));
        String session = ctx.cookie(SESSION_COOKIE);
        String caller;
        RateLimiter.Limit limit;
        if (credential != null) {
            boolean agent = path.startsWith("/api/agent/");
            caller = (agent ? "agent:" : "token:") + digest(credential);
            limit = agent ? settings.agent() : settings.api();
        } else if (session != null) {
            caller = "session:" + digest(session);
            limit = settings.api();
        } else {
            caller = "address:" + ctx.ip();
            limit = settings.anonymous();
        }
        Optional<Duration> wait = limiter.admit(caller, limit);
        if (wait.isPresent()) {
            limited.increment();
            throw ApiException.tooManyRequests("too many requests from this " + caller.substring(0,
                    caller.indexOf(':')) + ": at most " + limit.perSecond() + " a second (" + limit.burst()
                    + " at once); retry after " + ErrorResponses.retryAfterSeconds(wait.get()) + " seconds", wait.get());
        }
    }

    private static boolean streams(Context ctx) {
        String accept = ctx.header("Accept");
        return accept != null && accept.contains("text/event-stream") || "true".equals(ctx.queryParam("follow"));
    }

    /** The callers' keys hold no credential: a heap dump shows only digests. */
    private static String digest(String secret) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 16);
        } catch (NoSuchAlgorithmException impossible) {
            throw new IllegalStateException("every JDK has SHA-256", impossible);
        }
    }
}
